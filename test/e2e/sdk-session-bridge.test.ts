import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrontendClient, type TransferMode } from './app/client.js';
import { coreApiKey, startListeningCore, type ListeningCore } from './app/core.js';
import { Outbox } from './app/outbox.js';
import { startSdkApp, type SdkApp } from './app/sdk-app.js';
import { FakeIssuer } from '../session-bridge/fake-issuer.js';
import { kindCases } from '../session-bridge/kinds.js';

// A user signed in at the old provider (Firebase, faked on loopback) when the app moved to supertokens-node: the
// frontend sends its ID token once to the app's `POST /auth/bridge` (docs/session-bridge.md), the app exchanges it
// at the core and creates the session with the SDK, and the user reaches the protected route without a password.
const firebase = kindCases.find((kind) => kind.name === 'firebase')!;

describe('an app on supertokens-node bridges the old provider’s session', () => {
  let core: ListeningCore;
  let app: SdkApp;
  let issuer: FakeIssuer;

  beforeAll(async () => {
    issuer = await FakeIssuer.start('RS256');
    core = await startListeningCore({ log_level: 'DEBUG', session_bridge: { sources: { firebase: firebase.source(issuer.jwksUrl) } } });
    app = await startSdkApp({ coreUrl: core.url, apiKey: coreApiKey, outbox: new Outbox(), bridgeSource: 'firebase' });
  });
  afterAll(async () => {
    await app?.close();
    await core?.close();
    await issuer?.close();
  });

  async function coreRequest(method: string, path: string, body?: unknown): Promise<any> {
    const response = await fetch(`${core.url}${path}`, {
      method,
      headers: { 'api-key': coreApiKey, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return response.json();
  }

  /** A user moved by the migration: imported with a hash only the old provider could check, mapped to the old uid. */
  async function importFirebaseUser(email: string, uid: string): Promise<void> {
    const imported = await coreRequest('POST', '/recipe/user/passwordhash/import', {
      email,
      passwordHash: '$2a$10$' + 'x'.repeat(53),
      hashingAlgorithm: 'bcrypt',
    });
    expect(imported.status).toBe('OK');
    expect(await coreRequest('POST', '/recipe/userid/map', { superTokensUserId: imported.user.id, externalUserId: uid })).toEqual({
      status: 'OK',
    });
  }

  const idToken = (uid: string) => issuer.mint(firebase.claims(uid, Math.floor(Date.now() / 1000)));

  async function sessionsOf(userId: string): Promise<number> {
    const { rows } = await core.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM session_info WHERE user_id = $1', [userId]);
    return rows[0].n;
  }

  it.each<[TransferMode, string]>([
    ['cookie', 'web app'],
    ['header', 'mobile app'],
  ])('%s mode (%s): the old ID token, sent once, opens a session that reaches the protected route', async (mode) => {
    const uid = `firebase-uid-${mode}`;
    await importFirebaseUser(`${mode}@example.com`, uid);
    const c = new FrontendClient(app.url, mode);
    expect((await c.request('GET', '/api/me')).status).toBe(401);

    const token = await idToken(uid);
    const bridged = await c.request('POST', '/auth/bridge', { body: { token } });
    expect(bridged).toMatchObject({ status: 200, body: { status: 'OK', userId: uid } });
    if (mode === 'header') expect(bridged.headers.get('st-access-token')).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    else expect(bridged.headers.get('set-cookie')).toContain('sAccessToken=');

    const me = await c.request('GET', '/api/me');
    expect(me).toMatchObject({ status: 200, body: { userId: uid, recipeUserId: uid } });
    expect(await sessionsOf(uid)).toBe(1);

    // The same token again (another tab, a replay) opens nothing.
    const again = await new FrontendClient(app.url, mode).request('POST', '/auth/bridge', { body: { token } });
    expect(again).toMatchObject({ status: 401, body: { status: 'TOKEN_ALREADY_USED_ERROR' } });
    expect(await sessionsOf(uid)).toBe(1);
    for (const line of core.logs) expect(line).not.toContain(token.split('.')[2]);
  });

  it('a token of nobody imported, or a forged one, opens no session', async () => {
    const c = new FrontendClient(app.url, 'header');
    const stranger = await c.request('POST', '/auth/bridge', { body: { token: await idToken('never-imported') } });
    expect(stranger).toMatchObject({ status: 401, body: { status: 'UNKNOWN_USER_ERROR' } });
    await importFirebaseUser('forged@example.com', 'firebase-uid-forged');
    const forged = await FakeIssuer.forge(firebase.claims('firebase-uid-forged', Math.floor(Date.now() / 1000)), {
      alg: 'RS256',
      kid: issuer.kids[0],
    });
    expect(await c.request('POST', '/auth/bridge', { body: { token: forged } })).toMatchObject({
      status: 401,
      body: { status: 'INVALID_TOKEN_ERROR' },
    });
    expect((await c.request('GET', '/api/me')).status).toBe(401);
    expect(await sessionsOf('firebase-uid-forged')).toBe(0);
  });
});
