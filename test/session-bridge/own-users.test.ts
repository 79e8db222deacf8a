import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, countRows, useTestApp } from '../helper.js';
import { formatLazyPointer } from '../../src/hashing/lazy-pointer.js';
import { FakeIssuer } from './fake-issuer.js';
import { kindCases } from './kinds.js';
import { exchange, importUser, seconds, wireUser } from './helpers.js';

// Two providers migrated into one core: their old ids may be equal, and a token of one must never name a user of
// the other (docs/session-bridge.md, "Whose users a source names").
describe('a session-bridge source names only the users imported from its own provider', () => {
  const firebase = kindCases.find((k) => k.name === 'firebase')!;
  const auth0 = kindCases.find((k) => k.name === 'auth0')!;
  let firebaseIssuer: FakeIssuer;
  let auth0Issuer: FakeIssuer;
  beforeAll(async () => {
    [firebaseIssuer, auth0Issuer] = await Promise.all([FakeIssuer.start(firebase.alg), FakeIssuer.start(auth0.alg)]);
  });
  afterAll(async () => {
    await Promise.all([firebaseIssuer.close(), auth0Issuer.close()]);
  });

  const t = useTestApp(() => ({
    lazy_migration: { sources: { firebase: { kind: 'webhook', url: 'https://legacy.invalid/verify-password' } } },
    session_bridge: {
      sources: {
        firebase: firebase.source(firebaseIssuer.jwksUrl),
        mobile: { ...auth0.source(auth0Issuer.jwksUrl), external_id_prefix: 'auth0:' },
      },
    },
  }));
  const now = () => seconds(t.clock.nowMs);
  const firebaseToken = (sub: string) => firebaseIssuer.mint(firebase.claims(sub, now()));
  const auth0Token = (sub: string) => auth0Issuer.mint(auth0.claims(sub, now()));

  it("a token of the second source whose sub is a Firebase user's old id is UNKNOWN_USER_ERROR", async () => {
    const firebaseUser = await importUser(t.app, 'fb-user@example.com', 'shared-old-id');
    const before = await countRows(t.db, 'session_bridge_exchanges');
    expect((await exchange(t.app, 'mobile', await auth0Token('shared-old-id'))).json).toEqual({ status: 'UNKNOWN_USER_ERROR' });
    expect(await countRows(t.db, 'session_bridge_exchanges')).toBe(before);

    const auth0User = await importUser(t.app, 'a0-user@example.com', 'auth0:shared-old-id');
    expect((await exchange(t.app, 'mobile', await auth0Token('shared-old-id'))).json).toEqual({
      status: 'OK',
      user: await wireUser(t.app, auth0User),
      recipeUserId: 'auth0:shared-old-id',
    });
    expect((await exchange(t.app, 'firebase', await firebaseToken('shared-old-id'))).json).toEqual({
      status: 'OK',
      user: await wireUser(t.app, firebaseUser),
      recipeUserId: 'shared-old-id',
    });
    // The prefixed id is no old id of Firebase's.
    expect((await exchange(t.app, 'firebase', await firebaseToken('auth0:shared-old-id'))).json).toEqual({
      status: 'UNKNOWN_USER_ERROR',
    });
  });

  it('a pending lazy user is found only by the source its pointer names', async () => {
    const imported = await call(t.app, 'POST', '/recipe/user/passwordhash/import', {
      body: {
        email: 'lazy@example.com',
        passwordHash: formatLazyPointer({ source: 'firebase', legacyUserId: 'lazy-old-id' }),
        hashingAlgorithm: 'lazy',
      },
    });
    expect(imported.json.status, imported.body).toBe('OK');
    const id = imported.json.user.id as string;
    expect((await exchange(t.app, 'mobile', await auth0Token('lazy-old-id'))).json).toEqual({ status: 'UNKNOWN_USER_ERROR' });
    expect((await exchange(t.app, 'firebase', await firebaseToken('lazy-old-id'))).json).toEqual({
      status: 'OK',
      user: await wireUser(t.app, id),
      recipeUserId: id,
    });
  });
});
