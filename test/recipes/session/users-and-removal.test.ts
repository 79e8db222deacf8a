import { describe, expect, it } from 'vitest';
import { call, expectText, useTestApp } from '../../helper.js';
import { created, decodeJwt, sessionApi } from './support.js';

describe('revoking and listing sessions (vectors 12 and 13)', () => {
  const t = useTestApp();

  it('removes by handles, in input order, and the session is gone everywhere but a local verify', async () => {
    const api = sessionApi(t.app);
    const s = created(await api.create());
    expect((await api.remove({ sessionHandles: [s.handle, 'nope'] })).json).toEqual({ status: 'OK', sessionHandlesRevoked: [s.handle] });
    expect((await api.info(s.handle)).json).toEqual({ status: 'UNAUTHORISED', message: 'Session does not exist.' });
    expect((await api.refresh(s.refreshToken)).json).toEqual({ status: 'UNAUTHORISED', message: 'Session missing in db or has expired' });
    expect((await api.verify(s.accessToken, { checkDatabase: true })).json).toEqual({
      status: 'UNAUTHORISED',
      message: 'Either the session has ended or has been blacklisted',
    });
    expect((await api.verify(s.accessToken)).json.status).toBe('OK');
  });

  it.each([
    [{}, 'Invalid JSON input - use one of userId or sessionHandles array'],
    [{ userId: 'u1', sessionHandles: [] }, 'Invalid JSON input - use one of userId or sessionHandles array'],
    [{ sessionHandles: [1] }, "Field name 'sessionHandles' is invalid in JSON input"],
    [{ sessionHandles: [], revokeAcrossAllTenants: true }, 'Invalid JSON input - revokeAcrossAllTenants can only be set if userId is set'],
    [
      { sessionHandles: [], revokeSessionsForLinkedAccounts: false },
      'Invalid JSON input - revokeSessionsForLinkedAccounts can only be set if userId is set',
    ],
  ])('refuses %j', async (body, message) => {
    const reply = await sessionApi(t.app).remove(body);
    expect([reply.statusCode, expectText(reply)]).toEqual([400, message]);
  });

  it('lists and removes exactly the sessions of a user', async () => {
    const api = sessionApi(t.app);
    const a = created(await api.create({ userId: 'list-1' }));
    const b = created(await api.create({ userId: 'list-1' }));
    const other = created(await api.create({ userId: 'list-2' }));
    const listed = await api.handlesOf({ userId: 'list-1' });
    expect(listed.json.status).toBe('OK');
    expect([...listed.json.sessionHandles].sort()).toEqual([a.handle, b.handle].sort());
    const forbidden = await api.handlesOf({ userId: 'list-1' }, '/t1/recipe/session/user');
    expect([forbidden.statusCode, expectText(forbidden)]).toEqual([403, 'Only public tenantId can call this app specific API']);
    const removed = await api.remove({ userId: 'list-1' });
    expect(removed.json.status).toBe('OK');
    expect([...removed.json.sessionHandlesRevoked].sort()).toEqual([a.handle, b.handle].sort());
    expect((await api.handlesOf({ userId: 'list-2' })).json).toEqual({ status: 'OK', sessionHandles: [other.handle] });
    const inTenant = await api.remove({ userId: 'list-2', revokeAcrossAllTenants: false });
    expect(inTenant.json).toEqual({ status: 'OK', sessionHandlesRevoked: [other.handle] });
  });

  it('updates session data and the stored payload by handle', async () => {
    const api = sessionApi(t.app);
    const s = created(await api.create({ userDataInDatabase: { a: 1 } }));
    expect((await api.put('/recipe/session/data', { sessionHandle: s.handle, userDataInDatabase: { b: 2 } })).json).toEqual({
      status: 'OK',
    });
    expect((await call(t.app, 'GET', '/recipe/session/data', { query: { sessionHandle: s.handle } })).json).toEqual({
      status: 'OK',
      userDataInDatabase: { b: 2 },
    });
    const bad = await api.put('/recipe/jwt/data', { sessionHandle: s.handle, userDataInJWT: { sub: 'x' } });
    expect([bad.statusCode, expectText(bad)]).toEqual([400, 'The user payload contains protected field']);
    expect((await api.put('/recipe/session/data', { sessionHandle: 'nope', userDataInDatabase: {} })).json).toEqual({
      status: 'UNAUTHORISED',
      message: 'Session does not exist.',
    });
    const info = await api.info(s.handle);
    expect(info.json).toEqual({
      sessionHandle: s.handle,
      userId: 'u1',
      recipeUserId: 'u1',
      userDataInDatabase: { b: 2 },
      expiry: s.body.refreshToken.expiry,
      userDataInJWT: {},
      timeCreated: s.body.refreshToken.createdTime,
      status: 'OK',
      tenantId: 'public',
    });
  });
});

describe('mapped, linked and removed users (vector 14, S-6)', () => {
  const t = useTestApp();
  const signUp = async (email: string) => {
    const reply = await call(t.app, 'POST', '/recipe/signup', { body: { email, password: 'secret-password-1' } });
    return reply.json.user.id as string;
  };
  const map = (superTokensUserId: string, externalUserId: string, force = false) =>
    call(t.app, 'POST', '/recipe/userid/map', { body: { superTokensUserId, externalUserId, force } });

  it('puts the external id in every field whichever id the session is created with', async () => {
    const api = sessionApi(t.app);
    const st = await signUp('mapped@example.com');
    await map(st, 'legacy-42');
    for (const userId of [st, 'legacy-42']) {
      const s = created(await api.create({ userId }));
      expect(s.body.session).toMatchObject({ userId: 'legacy-42', recipeUserId: 'legacy-42' });
      expect(decodeJwt(s.accessToken).payload).toMatchObject({ sub: 'legacy-42', rsub: 'legacy-42' });
      // The refresh token names the id the session is stored under, whichever form came in.
      expect((await api.refresh(s.refreshToken)).json.status).toBe('OK');
    }
  });

  it('gives a linked login method the primary external id; unlinking ends its sessions', async () => {
    const api = sessionApi(t.app);
    const primary = await signUp('primary@example.com');
    const recipe = await signUp('linked@example.com');
    await map(primary, 'old-primary');
    await call(t.app, 'POST', '/recipe/accountlinking/user/primary', { body: { recipeUserId: primary } });
    const link = await call(t.app, 'POST', '/recipe/accountlinking/user/link', { body: { recipeUserId: recipe, primaryUserId: primary } });
    expect(link.json.status).toBe('OK');
    const s = created(await api.create({ userId: recipe }));
    expect(s.body.session).toMatchObject({ userId: 'old-primary', recipeUserId: recipe });
    expect(decodeJwt(s.accessToken).payload).toMatchObject({ sub: 'old-primary', rsub: recipe });
    // Revoking the primary with linked accounts reaches the recipe user's session.
    expect((await api.handlesOf({ userId: 'old-primary' })).json.sessionHandles).toEqual([s.handle]);
    expect((await api.handlesOf({ userId: 'old-primary', fetchSessionsForAllLinkedAccounts: 'false' })).json.sessionHandles).toEqual([]);

    await call(t.app, 'POST', '/recipe/accountlinking/user/unlink', { body: { recipeUserId: recipe } });
    expect((await api.refresh(s.refreshToken)).json).toEqual({ status: 'UNAUTHORISED', message: 'Session missing in db or has expired' });
    const fresh = created(await api.create({ userId: recipe }));
    expect(decodeJwt(fresh.accessToken).payload).toMatchObject({ sub: recipe, rsub: recipe });
    expect(fresh.body.session).toMatchObject({ userId: recipe, recipeUserId: recipe });
  });

  it('deletes the sessions of a removed user, under either id form', async () => {
    const api = sessionApi(t.app);
    const st = await signUp('removed@example.com');
    const before = created(await api.create({ userId: st }));
    // A live session holds the id: only `force` maps it (§9.1).
    expect((await map(st, 'legacy-removed')).body).toBe('UserId is already in use in Session recipe\n');
    expect((await map(st, 'legacy-removed', true)).json).toEqual({ status: 'OK' });
    const after = created(await api.create({ userId: st }));
    const kept = created(await api.create({ userId: 'someone-else' }));
    const reply = await call(t.app, 'POST', '/user/remove', { body: { userId: 'legacy-removed' } });
    expect(reply.json).toEqual({ status: 'OK' });
    const { rows } = await t.db.pool.query('SELECT session_handle FROM session_info WHERE session_handle = ANY($1)', [
      [before.handle, after.handle, kept.handle],
    ]);
    expect(rows).toEqual([{ session_handle: kept.handle }]);
    expect((await t.db.pool.query('SELECT user_id FROM users WHERE user_id = $1', [st])).rows).toEqual([]);
  });
});

describe('tenant read and the JWT recipe (vectors 15 and 16)', () => {
  const t = useTestApp();

  it('answers the single tenant in the shape that keeps the app’s own login methods', async () => {
    const reply = await call(t.app, 'GET', '/public/recipe/multitenancy/tenant/v2');
    expect([reply.statusCode, reply.body]).toEqual([
      200,
      '{"tenantId":"public","thirdParty":{"providers":[]},"coreConfig":{},"status":"OK"}\n',
    ]);
    expect((await call(t.app, 'GET', '/t1/recipe/multitenancy/tenant/v2')).json).toEqual({ status: 'TENANT_NOT_FOUND_ERROR' });
    expect((await call(t.app, 'GET', '/recipe/multitenancy/tenant/list/v2')).json).toEqual({
      status: 'OK',
      tenants: [{ tenantId: 'public', thirdParty: { providers: [] }, coreConfig: {} }],
    });
    expect((await call(t.app, 'GET', '/public/recipe/multitenancy/tenant')).json).toEqual({
      tenantId: 'public',
      emailPassword: { enabled: true },
      thirdParty: { enabled: true, providers: [] },
      passwordless: { enabled: true },
      coreConfig: {},
      status: 'OK',
    });
  });

  it('signs a JWT with the static key and refuses other algorithms and bad validity', async () => {
    const body = { algorithm: 'RS256', jwksDomain: 'https://api.example.com', payload: { a: 1 }, validity: 60 };
    const reply = await call(t.app, 'POST', '/recipe/jwt', { body });
    expect(reply.json).toEqual({ status: 'OK', jwt: expect.any(String) });
    const { header, payload } = decodeJwt(reply.json.jwt);
    expect(header).toEqual({ alg: 'RS256', typ: 'JWT', kid: expect.stringMatching(/^s-/) });
    expect(payload).toEqual({ iss: 'https://api.example.com', a: 1, iat: expect.any(Number), exp: (payload.iat as number) + 60 });
    expect((await call(t.app, 'POST', '/recipe/jwt', { body: { ...body, algorithm: 'HS256' } })).json).toEqual({
      status: 'UNSUPPORTED_ALGORITHM_ERROR',
    });
    const zero = await call(t.app, 'POST', '/recipe/jwt', { body: { ...body, validity: 0 } });
    expect([zero.statusCode, expectText(zero)]).toEqual([400, 'validity must be greater than or equal to 0']);
    const text = await call(t.app, 'POST', '/recipe/jwt', { body: { ...body, validity: '60' } });
    expect([text.statusCode, expectText(text)]).toEqual([400, "Field name 'validity' is invalid in JSON input"]);
    const dynamic = await call(t.app, 'POST', '/recipe/jwt', { body: { ...body, useStaticSigningKey: false } });
    expect(decodeJwt(dynamic.json.jwt).header.kid).toMatch(/^d-/);
    const jwks = await call(t.app, 'GET', '/recipe/jwt/jwks');
    expect(jwks.json).toEqual({
      keys: [expect.objectContaining({ kid: expect.stringMatching(/^d-/) }), expect.objectContaining({ kid: header.kid })],
      status: 'OK',
    });
    expect((await call(t.app, 'GET', '/t1/recipe/jwt/jwks')).statusCode).toBe(403);
  });
});
