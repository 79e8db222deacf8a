import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, base64url, type JWTPayload } from 'jose';
import { call, countRows, expectText, useTestApp } from '../helper.js';
import { formatLazyPointer } from '../../src/hashing/lazy-pointer.js';
import { FakeIssuer } from './fake-issuer.js';
import { kindCases, supabaseClaims } from './kinds.js';
import { exchange, importUser, seconds, wireUser } from './helpers.js';

const supabaseSecret = 'super-secret-jwt-token-with-at-least-32-characters-long';

describe('session-bridge exchange', () => {
  const issuers = new Map<string, FakeIssuer>();
  beforeAll(async () => {
    for (const kind of kindCases) issuers.set(kind.name, await FakeIssuer.start(kind.alg));
  });
  afterAll(async () => {
    for (const issuer of issuers.values()) await issuer.close();
  });
  const issuer = (name: string) => issuers.get(name)!;
  const kind = (name: string) => kindCases.find((k) => k.name === name)!;

  const t = useTestApp(() => ({
    log_level: 'INFO',
    // Users imported for lazy migration name a configured source.
    lazy_migration: { sources: { legacy: { kind: 'webhook', url: 'https://legacy.invalid/verify-password' } } },
    // Every source here looks mapped users up by the old id as it is: the operator's choice (the tests give each
    // provider's users distinct old ids), without which sources of different issuers could not share them.
    session_bridge: {
      sources: {
        ...Object.fromEntries(kindCases.map((k) => [k.name, { ...k.source(issuer(k.name).jwksUrl), external_id_prefix: '' }])),
        firebase: { ...kind('firebase').source(issuer('firebase').jwksUrl), external_id_prefix: '', lazy_source: 'legacy' },
        'supabase-legacy': { ...kind('supabase').source(issuer('supabase').jwksUrl), jwt_secret: supabaseSecret, external_id_prefix: '' },
        closed: { ...kind('firebase').source(issuer('firebase').jwksUrl), deadline: '2020-01-01T00:00:00Z', external_id_prefix: '' },
        // An Auth0 tenant whose users were moved in from an older system: a namespaced claim keeps that old id.
        'auth0-claim': {
          ...kind('auth0').source(issuer('auth0').jwksUrl),
          claim: 'https://acme.example/legacy_id',
          external_id_prefix: '',
        },
      },
    },
  }));

  const now = () => seconds(t.clock.nowMs);
  const firebaseToken = (sub: string, extra: JWTPayload = {}) =>
    issuer('firebase').mint({ ...kind('firebase').claims(sub, now()), ...extra });
  it.each(kindCases.map((k) => [k.name, k] as const))('%s: a token of an imported user gets that user', async (name, k) => {
    const oldId = `${name}|old-${name}`;
    const internalId = await importUser(t.app, `${name}@example.com`, oldId);
    const claims = k.claims(oldId, now());
    const before = await countRows(t.db, 'session_bridge_exchanges');

    const reply = await exchange(t.app, name, await issuer(name).mint(claims));

    expect(reply.statusCode, reply.body).toBe(200);
    expect(reply.json).toEqual({ status: 'OK', user: await wireUser(t.app, oldId), recipeUserId: oldId });
    expect(await countRows(t.db, 'session_bridge_exchanges')).toBe(before + 1);
    const { rows } = await t.db.pool.query('SELECT user_id, expires_at FROM session_bridge_exchanges WHERE source = $1', [name]);
    expect(rows).toEqual([{ user_id: internalId, expires_at: (claims.exp as number) * 1000 }]);
  });

  it('supabase: a project on the legacy shared secret has its HS256 tokens exchanged', async () => {
    await importUser(t.app, 'legacy-supabase@example.com', '8c0f5f1e-7d5d-4f6e-9a57-0f2f3c9a1b11');
    const token = await new SignJWT(supabaseClaims('8c0f5f1e-7d5d-4f6e-9a57-0f2f3c9a1b11', now()))
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .sign(new TextEncoder().encode(supabaseSecret));
    const reply = await exchange(t.app, 'supabase-legacy', token);
    expect(reply.json).toEqual({
      status: 'OK',
      user: await wireUser(t.app, '8c0f5f1e-7d5d-4f6e-9a57-0f2f3c9a1b11'),
      recipeUserId: '8c0f5f1e-7d5d-4f6e-9a57-0f2f3c9a1b11',
    });
    // The same token where no secret is configured is an algorithm the source does not take.
    expect((await exchange(t.app, 'supabase', token)).json).toEqual({ status: 'INVALID_TOKEN_ERROR' });
  });

  it("a claim override reads the old id from the named claim instead of the kind's", async () => {
    await importUser(t.app, 'claim@example.com', 'legacy-42');
    const claims = { ...kind('auth0').claims('auth0|64ab0c1d2e3f', now()), 'https://acme.example/legacy_id': 'legacy-42' };
    const reply = await exchange(t.app, 'auth0-claim', await issuer('auth0').mint(claims));
    expect(reply.json).toEqual({ status: 'OK', user: await wireUser(t.app, 'legacy-42'), recipeUserId: 'legacy-42' });
    // Without the claim there is no old id to look for.
    const without = await issuer('auth0').mint(kind('auth0').claims('auth0|64ab0c1d2e3f', now()));
    expect((await exchange(t.app, 'auth0-claim', without)).json).toEqual({ status: 'INVALID_TOKEN_ERROR' });
  });

  it('a linked user is answered as the primary user, with the login method the old id names', async () => {
    const primary = await importUser(t.app, 'primary@example.com');
    const linked = await importUser(t.app, 'linked@example.com', 'old-linked');
    expect((await call(t.app, 'POST', '/recipe/accountlinking/user/primary', { body: { recipeUserId: primary } })).json.status).toBe('OK');
    const link = await call(t.app, 'POST', '/recipe/accountlinking/user/link', { body: { recipeUserId: linked, primaryUserId: primary } });
    expect(link.json.status, link.body).toBe('OK');

    const reply = await exchange(t.app, 'firebase', await firebaseToken('old-linked'));

    const user = await wireUser(t.app, primary);
    expect(user.id).toBe(primary);
    expect(user.isPrimaryUser).toBe(true);
    expect(reply.json).toEqual({ status: 'OK', user, recipeUserId: 'old-linked' });
  });

  it('a user imported for lazy migration is found by the old id its pointer carries, by the source named for it', async () => {
    const pointer = formatLazyPointer({ source: 'legacy', legacyUserId: 'lazy-old-id' });
    const imported = await call(t.app, 'POST', '/recipe/user/passwordhash/import', {
      body: { email: 'lazy@example.com', passwordHash: pointer, hashingAlgorithm: 'lazy' },
    });
    expect(imported.json.status, imported.body).toBe('OK');
    const id = imported.json.user.id as string;
    const auth0Token = await issuer('auth0').mint(kind('auth0').claims('lazy-old-id', now()));
    expect((await exchange(t.app, 'auth0', auth0Token)).json).toEqual({ status: 'UNKNOWN_USER_ERROR' });
    const reply = await exchange(t.app, 'firebase', await firebaseToken('lazy-old-id'));
    expect(reply.json).toEqual({ status: 'OK', user: await wireUser(t.app, id), recipeUserId: id });
  });

  it('a token is exchanged once: the second time it is refused, even after the exchange that spent it', async () => {
    await importUser(t.app, 'once@example.com', 'old-once');
    const token = await firebaseToken('old-once');
    expect((await exchange(t.app, 'firebase', token)).json.status).toBe('OK');
    const rows = await countRows(t.db, 'session_bridge_exchanges');
    expect((await exchange(t.app, 'firebase', token)).json).toEqual({ status: 'TOKEN_ALREADY_USED_ERROR' });
    // The same signature written differently: the last base64url character of a 2048-bit signature carries 4 unused
    // bits, so flipping one still decodes to the same bytes. It is the same token.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const respelled = token.slice(0, -1) + alphabet[alphabet.indexOf(token.at(-1)!) ^ 1];
    expect(respelled).not.toBe(token);
    expect((await exchange(t.app, 'firebase', respelled)).json).toEqual({ status: 'TOKEN_ALREADY_USED_ERROR' });
    expect(await countRows(t.db, 'session_bridge_exchanges')).toBe(rows);
    // A new token of the same user (the next hourly ID token) is another exchange.
    t.clock.advance(1000);
    expect((await exchange(t.app, 'firebase', await firebaseToken('old-once'))).json.status).toBe('OK');
  });

  it('a Firebase token issued up to a minute ahead of this clock, or with a fractional exp, is exchanged', async () => {
    await importUser(t.app, 'skew@example.com', 'old-skew');
    const token = await firebaseToken('old-skew', { iat: now() + 60, exp: now() + 3600.5 });
    expect((await exchange(t.app, 'firebase', token)).json.status).toBe('OK');
    const { rows } = await t.db.pool.query(
      "SELECT expires_at FROM session_bridge_exchanges WHERE source = 'firebase' ORDER BY exchanged_at DESC LIMIT 1",
    );
    expect(rows).toEqual([{ expires_at: (now() + 3600) * 1000 + 500 }]);
  });

  it('a valid token of nobody imported is UNKNOWN_USER_ERROR, and the token is not spent', async () => {
    const token = await firebaseToken('never-imported');
    const rows = await countRows(t.db, 'session_bridge_exchanges');
    expect((await exchange(t.app, 'firebase', token)).json).toEqual({ status: 'UNKNOWN_USER_ERROR' });
    expect(await countRows(t.db, 'session_bridge_exchanges')).toBe(rows);
    await importUser(t.app, 'late@example.com', 'never-imported');
    expect((await exchange(t.app, 'firebase', token)).json.status).toBe('OK');
  });

  it('a source past its deadline is SOURCE_CLOSED_ERROR, whatever the token', async () => {
    await importUser(t.app, 'closed@example.com', 'old-closed');
    expect((await exchange(t.app, 'closed', await firebaseToken('old-closed'))).json).toEqual({ status: 'SOURCE_CLOSED_ERROR' });
    expect((await exchange(t.app, 'closed', 'garbage')).json).toEqual({ status: 'SOURCE_CLOSED_ERROR' });
  });

  it('answers 400 for an unknown source or a missing field, and writes nothing', async () => {
    const rows = await countRows(t.db, 'session_bridge_exchanges');
    const unknown = await exchange(t.app, 'nope', await firebaseToken('old-x'));
    expect(unknown.statusCode).toBe(400);
    expect(expectText(unknown)).toBe("Unknown session-bridge source 'nope'");
    const noToken = await call(t.app, 'POST', '/public/session-bridge/exchange', { body: { source: 'firebase' } });
    expect([noToken.statusCode, expectText(noToken)]).toEqual([400, "Field name 'token' is invalid in JSON input"]);
    const noSource = await call(t.app, 'POST', '/public/session-bridge/exchange', { body: { token: 'x' } });
    expect([noSource.statusCode, expectText(noSource)]).toEqual([400, "Field name 'source' is invalid in JSON input"]);
    const notText = await call(t.app, 'POST', '/public/session-bridge/exchange', { body: { source: 'firebase', token: 12 } });
    expect([notText.statusCode, expectText(notText)]).toEqual([400, "Field name 'token' is invalid in JSON input"]);
    expect(await countRows(t.db, 'session_bridge_exchanges')).toBe(rows);
  });

  describe('INVALID_TOKEN_ERROR for every way a token can be wrong, its cause logged and counted', () => {
    const unsigned = (header: object, claims: object) =>
      `${base64url.encode(JSON.stringify(header))}.${base64url.encode(JSON.stringify(claims))}.`;
    const cases: Array<[string, string, () => Promise<string>]> = [
      [
        'a signature by another key under a published kid',
        'bad_signature',
        async () => FakeIssuer.forge(kind('firebase').claims('old-bad', now()), { alg: 'RS256', kid: issuer('firebase').kids[0] }),
      ],
      [
        'a kid the provider never published',
        'unknown_key',
        async () => FakeIssuer.forge(kind('firebase').claims('old-bad', now()), { alg: 'RS256', kid: 'invented' }),
      ],
      ['another issuer', 'wrong_issuer', () => firebaseToken('old-bad', { iss: 'https://securetoken.google.com/other-project' })],
      ['another audience', 'wrong_audience', () => firebaseToken('old-bad', { aud: 'other-project' })],
      ['an expired token', 'expired', () => firebaseToken('old-bad', { iat: now() - 7200, exp: now() - 3600 })],
      ['a token not valid yet', 'not_yet_valid', () => firebaseToken('old-bad', { nbf: now() + 600 })],
      ['a token without expiry', 'missing_expiry', () => firebaseToken('old-bad', { exp: undefined })],
      ['a token without subject', 'missing_subject', () => firebaseToken('old-bad', { sub: undefined })],
      ['a subject with U+0000', 'missing_subject', () => firebaseToken('old-bad\u0000x')],
      ['a subject with a lone surrogate', 'missing_subject', () => firebaseToken('old-bad\uD800x')],
      ['an expiry of 1e17 s', 'malformed', () => firebaseToken('old-bad', { exp: 1e17 })],
      ['an expiry past year 9999', 'malformed', () => firebaseToken('old-bad', { exp: 253_402_300_800 })],
      ['a Firebase token issued in the future', 'not_yet_valid', () => firebaseToken('old-bad', { iat: now() + 61 })],
      ['a Firebase token without iat', 'malformed', () => firebaseToken('old-bad', { iat: undefined })],
      ['alg none', 'algorithm_not_allowed', async () => unsigned({ alg: 'none', typ: 'JWT' }, kind('firebase').claims('old-bad', now()))],
      [
        'HS256 keyed with the public key against an RSA source',
        'algorithm_not_allowed',
        async () => {
          const jwk = (await (await fetch(issuer('firebase').jwksUrl)).json()).keys[0];
          return new SignJWT(kind('firebase').claims('old-bad', now()))
            .setProtectedHeader({ alg: 'HS256', kid: jwk.kid })
            .sign(new TextEncoder().encode(JSON.stringify(jwk)));
        },
      ],
      [
        'ES256, which Firebase never signs with',
        'algorithm_not_allowed',
        async () => FakeIssuer.forge(kind('firebase').claims('old-bad', now()), { alg: 'ES256', kid: issuer('firebase').kids[0] }),
      ],
      ['not a JWT', 'malformed', async () => 'not-a-token'],
      ['a header that is not JSON', 'malformed', async () => `${base64url.encode('{alg')}.${base64url.encode('{}')}.c2ln`],
      ['more than 16 KB', 'oversized', () => firebaseToken('old-bad', { padding: 'x'.repeat(17 * 1024) })],
    ];

    it.each(cases)('%s (%s)', async (_what, cause, make) => {
      await importUser(t.app, `bad-${cause}-${Math.random()}@example.com`, `old-bad-${Math.random()}`);
      const token = await make();
      const rows = await countRows(t.db, 'session_bridge_exchanges');
      const logged = t.logs.length;

      const reply = await exchange(t.app, 'firebase', token);

      expect([reply.statusCode, reply.json]).toEqual([200, { status: 'INVALID_TOKEN_ERROR' }]);
      expect(await countRows(t.db, 'session_bridge_exchanges')).toBe(rows);
      const lines = t.logs.slice(logged).map((line) => JSON.parse(line));
      expect(lines.filter((line) => line.msg === 'session-bridge token refused')).toEqual([
        expect.objectContaining({ source: 'firebase', cause }),
      ]);
      const signature = token.split('.')[2] ?? '';
      for (const line of t.logs.slice(logged)) {
        expect(line).not.toContain(token.slice(0, 40));
        if (signature.length > 8) expect(line).not.toContain(signature);
      }
    });

    it('counts each cause in /metrics and in the status, by source', async () => {
      const metrics = (await call(t.app, 'GET', '/metrics')).body;
      for (const [, cause] of cases) {
        const expected = cases.filter(([, c]) => c === cause).length;
        expect(metrics).toContain(`identity_core_session_bridge_invalid_tokens_total{source="firebase",cause="${cause}"} ${expected}`);
      }
      const status = await call(t.app, 'GET', '/session-bridge/status');
      const firebase = status.json.sources.find((source: { name: string }) => source.name === 'firebase');
      expect(firebase.days).toHaveLength(1);
      expect(firebase.days[0].refused).toMatchObject({ bad_signature: 1, algorithm_not_allowed: 3, malformed: 5, oversized: 1 });
    });

    it('a Cognito ID token offered to an access-token source names the wrong token_use', async () => {
      await importUser(t.app, 'cognito-use@example.com', 'old-cognito-use');
      const token = await issuer('cognito-access').mint(kind('cognito').claims('old-cognito-use', now()));
      expect((await exchange(t.app, 'cognito-access', token)).json).toEqual({ status: 'INVALID_TOKEN_ERROR' });
      expect(t.logs.filter((line) => line.includes('session-bridge token refused')).at(-1)).toContain('"cause":"wrong_token_use"');
    });
  });
});
