import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { call, countRows, expectText, useTestApp } from '../../helper.js';
import { created, decodeJwt, sessionApi, sha, tokenInfo, uuidPattern } from './support.js';

describe('create and verify (S-9 vectors 1 to 4, 9 to 11)', () => {
  const t = useTestApp();

  it('creates a session with a V5 access token signed by a dynamic key (vector 1)', async () => {
    const api = sessionApi(t.app);
    const reply = await api.create({ userDataInJWT: { k: 'v' }, userDataInDatabase: { d: 1 } });
    expect(reply.json).toEqual({
      session: {
        handle: expect.stringMatching(uuidPattern),
        userId: 'u1',
        recipeUserId: 'u1',
        userDataInJWT: { k: 'v' },
        tenantId: 'public',
      },
      accessToken: tokenInfo,
      refreshToken: tokenInfo,
      status: 'OK',
    });
    const { handle, accessToken, refreshToken, body } = created(reply);
    const { header, payload } = decodeJwt(accessToken);
    expect(header).toEqual({ alg: 'RS256', typ: 'JWT', kid: expect.stringMatching(/^d-\d{13}$/), version: '5' });
    expect(payload).toEqual({
      sub: 'u1',
      exp: expect.any(Number),
      iat: expect.any(Number),
      tId: 'public',
      rsub: 'u1',
      sessionHandle: handle,
      refreshTokenHash1: sha(refreshToken),
      parentRefreshTokenHash1: null,
      antiCsrfToken: null,
      k: 'v',
    });
    expect(Object.keys(payload)).toEqual([
      'sub',
      'exp',
      'iat',
      'tId',
      'rsub',
      'sessionHandle',
      'refreshTokenHash1',
      'parentRefreshTokenHash1',
      'antiCsrfToken',
      'k',
    ]);
    const exp = payload.exp as number;
    const iat = payload.iat as number;
    expect(body.accessToken.expiry).toBe(exp * 1000);
    expect(body.accessToken.createdTime).toBe(iat * 1000);
    expect(exp - iat).toBeGreaterThanOrEqual(3420);
    expect(exp - iat).toBeLessThanOrEqual(3600);
    expect(body.refreshToken.expiry - body.refreshToken.createdTime).toBe(144000 * 60_000);
    const { rows } = await t.db.pool.query('SELECT * FROM session_info WHERE session_handle = $1', [handle]);
    expect(rows).toEqual([
      {
        tenant_id: 'public',
        session_handle: handle,
        user_id: 'u1',
        refresh_token_hash_2: sha(sha(refreshToken)),
        prev_refresh_token_hash_2: null,
        refresh_token_rotated_at: null,
        session_data: '{"d":1}',
        jwt_user_payload: '{"k":"v"}',
        expires_at: body.refreshToken.expiry,
        created_at_time: body.refreshToken.createdTime,
        use_static_key: false,
      },
    ]);
    // Neither token is stored in any form but its digest.
    const dump = JSON.stringify((await t.db.pool.query('SELECT * FROM session_info')).rows);
    expect(dump).not.toContain(refreshToken);
    expect(dump).not.toContain(sha(refreshToken));
  });

  it('signs with the static key when useDynamicSigningKey is false', async () => {
    const { accessToken } = created(await sessionApi(t.app).create({ useDynamicSigningKey: false }));
    expect(decodeJwt(accessToken).header.kid).toMatch(/^s-[0-9a-f-]{36}$/);
  });

  it('serves the JWKS without an api key and jose verifies the token against it (vector 2)', async () => {
    const { accessToken } = created(await sessionApi(t.app).create());
    const reply = await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
    expect(reply.statusCode).toBe(200);
    expect(reply.headers['cache-control']).toMatch(/^max-age=\d+, must-revalidate$/);
    const keys = reply.json().keys as Record<string, unknown>[];
    expect(keys).toEqual([
      { kty: 'RSA', kid: expect.stringMatching(/^d-\d+$/), n: expect.any(String), e: 'AQAB', alg: 'RS256', use: 'sig' },
      { kty: 'RSA', kid: expect.stringMatching(/^s-/), n: expect.any(String), e: 'AQAB', alg: 'RS256', use: 'sig' },
    ]);
    expect(Buffer.from(keys[0].n as string, 'base64url').length * 8).toBe(2048);
    expect(keys[0].kid).toBe(decodeJwt(accessToken).header.kid);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const url = new URL(`http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/.well-known/jwks.json`);
    const { payload } = await jwtVerify(accessToken, createRemoteJWKSet(url), { currentDate: new Date(t.clock.now()) });
    expect(payload.sub).toBe('u1');
  });

  it.each(['sub', 'rsub', 'tId', 'exp', 'sessionHandle'])('refuses the protected claim %s and writes nothing (vector 3)', async (claim) => {
    const before = await countRows(t.db, 'session_info');
    const reply = await sessionApi(t.app).create({ userDataInJWT: { [claim]: 'x' } });
    expect([reply.statusCode, expectText(reply)]).toEqual([400, 'The user payload contains protected field']);
    expect(await countRows(t.db, 'session_info')).toBe(before);
  });

  it('accepts iss and null claims', async () => {
    const reply = await sessionApi(t.app).create({ userDataInJWT: { iss: 'x', n: null } });
    expect(decodeJwt(created(reply).accessToken).payload).toMatchObject({ iss: 'x', n: null });
  });

  it.each([
    [{ userId: 1 }, 'userId'],
    [{ enableAntiCsrf: 'no' }, 'enableAntiCsrf'],
    [{ userDataInJWT: [] }, 'userDataInJWT'],
    [{ userDataInDatabase: 'x' }, 'userDataInDatabase'],
    [{ useDynamicSigningKey: 'yes' }, 'useDynamicSigningKey'],
  ])('names the bad field %j', async (body, field) => {
    const reply = await sessionApi(t.app).create(body);
    expect([reply.statusCode, expectText(reply)]).toEqual([400, `Field name '${field}' is invalid in JSON input`]);
  });

  it('answers 400 for an unknown tenant and cdi-versions before 2.21', async () => {
    const unknownTenant = await sessionApi(t.app).create({}, 't1');
    expect(unknownTenant.statusCode).toBe(400);
    expect(expectText(unknownTenant)).toMatch(/^AppId or tenantId not found/);
    const old = await sessionApi(t.app, '2.20').create();
    expect([old.statusCode, expectText(old)]).toEqual([400, 'cdi-version 2.20 not supported']);
  });

  it('verifies locally without a new token, and requires checkDatabase (vector 4)', async () => {
    const api = sessionApi(t.app);
    const { accessToken, handle } = created(await api.create({ userDataInJWT: { k: 'v' } }));
    const reply = await api.verify(accessToken);
    expect(reply.json).toEqual({
      session: { handle, userId: 'u1', recipeUserId: 'u1', userDataInJWT: { k: 'v' }, tenantId: 'public' },
      status: 'OK',
    });
    const missing = await call(t.app, 'POST', '/recipe/session/verify', {
      body: { accessToken, doAntiCsrfCheck: false, enableAntiCsrf: false },
      headers: { 'cdi-version': '5.4' },
    });
    expect([missing.statusCode, expectText(missing)]).toEqual([400, "Field name 'checkDatabase' is invalid in JSON input"]);
  });

  it('refuses forged, tampered, unsigned, HS256 and unknown-key tokens', async () => {
    const api = sessionApi(t.app);
    const { accessToken } = created(await api.create());
    const [header, payload, signature] = accessToken.split('.');
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const decoded = decodeJwt(accessToken);
    const tampered = `${header}.${b64({ ...decoded.payload, sub: 'admin' })}.${signature}`;
    const none = `${b64({ ...decoded.header, alg: 'none' })}.${payload}.`;
    const jwks = (await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json().keys[0];
    const crypto = await import('node:crypto');
    const hsHeader = b64({ ...decoded.header, alg: 'HS256' });
    const hsSignature = crypto.createHmac('sha256', JSON.stringify(jwks)).update(`${hsHeader}.${payload}`).digest('base64url');
    const unknownKid = `${b64({ ...decoded.header, kid: 'd-1' })}.${payload}.${signature}`;
    const cases: [string, string][] = [
      [tampered, 'JWT verification failed'],
      [none, 'Invalid JWT'],
      [`${hsHeader}.${payload}.${hsSignature}`, 'Invalid JWT'],
      [unknownKid, 'Key not found'],
      ['not-a-jwt', 'Invalid JWT'],
    ];
    for (const [token, message] of cases) {
      expect((await api.verify(token)).json, message).toEqual({ status: 'TRY_REFRESH_TOKEN', message });
    }
  });

  it('checks anti-CSRF tokens when asked (vector 10)', async () => {
    const api = sessionApi(t.app);
    const reply = await api.create({ enableAntiCsrf: true });
    const { accessToken, refreshToken, body } = created(reply);
    expect(body.antiCsrfToken).toMatch(uuidPattern);
    expect(decodeJwt(accessToken).payload.antiCsrfToken).toBe(body.antiCsrfToken);
    const flags = { doAntiCsrfCheck: true, enableAntiCsrf: true };
    expect((await api.verify(accessToken, { ...flags, antiCsrfToken: 'wrong' })).json).toEqual({
      status: 'TRY_REFRESH_TOKEN',
      message: 'anti-csrf check failed',
    });
    expect((await api.verify(accessToken, { ...flags, antiCsrfToken: body.antiCsrfToken })).json.status).toBe('OK');
    expect((await api.refresh(refreshToken, { enableAntiCsrf: true })).json).toEqual({
      status: 'UNAUTHORISED',
      message: 'Anti CSRF token missing, or not matching',
    });
    const plain = await api.refresh(refreshToken, { enableAntiCsrf: false });
    expect(plain.json).toEqual({ session: expect.any(Object), accessToken: tokenInfo, refreshToken: tokenInfo, status: 'OK' });
  });
});

describe('expiry and regenerate (vector 11)', () => {
  const t = useTestApp({ access_token_validity: 1, access_token_validity_jitter: 0 });

  it('reports an expired token, regenerates it into the stored payload, and the next refresh carries it', async () => {
    const api = sessionApi(t.app);
    const { accessToken, refreshToken, handle } = created(await api.create({ userDataInJWT: { k: 'v' } }));
    t.clock.advance(2000);
    expect((await api.verify(accessToken)).json).toEqual({ status: 'TRY_REFRESH_TOKEN', message: 'Access token expired' });
    const regenerated = await api.regenerate(accessToken, { k: 'v2' });
    expect(regenerated.json).toEqual({
      session: { handle, userId: 'u1', recipeUserId: 'u1', userDataInJWT: { k: 'v2' }, tenantId: 'public' },
      status: 'OK',
    });
    expect((await api.info(handle)).json.userDataInJWT).toEqual({ k: 'v2' });
    const refreshed = created(await api.refresh(refreshToken));
    expect(decodeJwt(refreshed.accessToken).payload.k).toBe('v2');

    const live = await api.regenerate(refreshed.accessToken, { k: 'v3' });
    expect(live.json).toEqual({
      session: { handle, userId: 'u1', recipeUserId: 'u1', userDataInJWT: { k: 'v3' }, tenantId: 'public' },
      accessToken: tokenInfo,
      status: 'OK',
    });
    const before = decodeJwt(refreshed.accessToken).payload;
    const after = decodeJwt(live.json.accessToken.token).payload;
    expect(after).toEqual({ ...before, iat: after.iat, k: 'v3' });
    expect(after.exp).toBe(before.exp);

    const protectedClaim = await api.regenerate(refreshed.accessToken, { rsub: 'x' });
    expect([protectedClaim.statusCode, protectedClaim.body.trim()]).toEqual([400, 'The user payload contains protected field']);
    await api.remove({ sessionHandles: [handle] });
    expect((await api.regenerate(refreshed.accessToken, { k: 'v4' })).json).toEqual({
      status: 'UNAUTHORISED',
      message: 'Session does not exist.',
    });
    expect((await api.regenerate('garbage')).json).toEqual({ status: 'UNAUTHORISED', message: 'Invalid access token' });
  });
});

describe('session tokens in the log', () => {
  const t = useTestApp({ log_level: 'DEBUG' });

  it('never writes a token, whatever the request and its outcome', async () => {
    const api = sessionApi(t.app);
    const s = created(await api.create({ enableAntiCsrf: true }));
    const secrets = [s.accessToken, s.refreshToken, s.body.antiCsrfToken as string];
    const refreshed = created(await api.refresh(s.refreshToken, { enableAntiCsrf: true, antiCsrfToken: s.body.antiCsrfToken }));
    secrets.push(refreshed.accessToken, refreshed.refreshToken, refreshed.body.antiCsrfToken as string);
    await api.verify(s.accessToken, { checkDatabase: 'yes' });
    await api.refresh(s.refreshToken, { useDynamicSigningKey: 'no' });
    await call(t.app, 'POST', '/recipe/session/refresh', { body: `{"refreshToken":"${s.refreshToken}",` });
    await api.regenerate(refreshed.accessToken, { sub: 'x' });
    await api.refresh(s.refreshToken);
    const log = t.logs.join('');
    expect(log).toContain('request refused');
    for (const secret of secrets) {
      expect(log).not.toContain(secret);
      expect(log).not.toContain(secret.slice(0, 24));
    }
  });
});
