import { describe, expect, it } from 'vitest';
import { call, snapshot, useTestApp } from '../../helper.js';
import { expectedLegacyUser, expectedUser, insertUser, mapUser, verifyEmail } from '../../users/fixtures.js';

const tenantError = (tenant: string) =>
  `AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, public, ${tenant})`;

describe('GET /recipe/user with rid: thirdparty', () => {
  const t = useTestApp({}, { truncateEach: true });

  const getUser = (query: Record<string, string>, headers: Record<string, string> = {}, url = '/recipe/user') =>
    call(t.app, 'GET', url, { query, headers: { rid: 'thirdparty', ...headers } });

  it('finds a third-party user by internal id, external id and provider account', async () => {
    const user = await insertUser(t.db, {
      recipeId: 'thirdparty',
      thirdPartyId: 'google',
      thirdPartyUserId: 'g-1',
      email: 'a@example.com',
    });
    await verifyEmail(t.db, user.userId, 'a@example.com');
    await mapUser(t.db, user.userId, 'old-1');
    const expected = { status: 'OK', user: expectedUser(user, { verified: true, externalId: 'old-1' }) };
    expect((await getUser({ userId: user.userId })).json).toEqual(expected);
    expect((await getUser({ userId: 'old-1' })).json).toEqual(expected);
    expect((await getUser({ thirdPartyId: 'google', thirdPartyUserId: 'g-1' })).json).toEqual(expected);
  });

  it('answers the legacy shape below cdi 4.0', async () => {
    const user = await insertUser(t.db, { recipeId: 'thirdparty', email: 'a@example.com' });
    const reply = await getUser({ userId: user.userId }, { 'cdi-version': '3.0' });
    expect(reply.json).toEqual({ status: 'OK', user: expectedLegacyUser(user) });
  });

  it('answers UNKNOWN_USER_ID_ERROR for an unknown id or a user of another recipe', async () => {
    const other = await insertUser(t.db, { recipeId: 'emailpassword' });
    expect((await getUser({ userId: 'nobody' })).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect((await getUser({ userId: other.userId })).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
  });

  it('answers UNKNOWN_THIRD_PARTY_USER_ERROR for an unknown provider account (case matters)', async () => {
    await insertUser(t.db, { recipeId: 'thirdparty', thirdPartyId: 'google', thirdPartyUserId: 'g-1' });
    expect((await getUser({ thirdPartyId: 'Google', thirdPartyUserId: 'g-1' })).json).toEqual({ status: 'UNKNOWN_THIRD_PARTY_USER_ERROR' });
  });

  it.each([
    [{ userId: 'x', thirdPartyId: 'google' }, 'Please provide only one of userId or (thirdPartyId & thirdPartyUserId)'],
    [{ userId: 'x', thirdPartyUserId: 'g-1' }, 'Please provide only one of userId or (thirdPartyId & thirdPartyUserId)'],
    [{}, 'Please provide one of userId or (thirdPartyId & thirdPartyUserId)'],
    [{ thirdPartyId: 'google' }, 'Please provide one of userId or (thirdPartyId & thirdPartyUserId)'],
    [{ thirdPartyUserId: 'g-1' }, 'Please provide one of userId or (thirdPartyId & thirdPartyUserId)'],
  ])('rejects %o with 400', async (query, message) => {
    const before = await snapshot(t.db);
    const reply = await getUser(query);
    expect([reply.statusCode, reply.body]).toEqual([400, `${message}\n`]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('is app-scoped by userId and tenant-scoped by provider account', async () => {
    const user = await insertUser(t.db, { recipeId: 'thirdparty', thirdPartyId: 'google', thirdPartyUserId: 'g-1' });
    const byId = await getUser({ userId: user.userId }, {}, '/tenant1/recipe/user');
    expect([byId.statusCode, byId.body]).toEqual([403, 'Only public tenantId can call this app specific API\n']);
    const byIdOld = await getUser({ userId: user.userId }, { 'cdi-version': '4.0' }, '/tenant1/recipe/user');
    expect(byIdOld.json).toEqual({ status: 'OK', user: expectedUser(user, { webauthn: false }) });
    const byAccount = await getUser({ thirdPartyId: 'google', thirdPartyUserId: 'g-1' }, {}, '/tenant1/recipe/user');
    expect([byAccount.statusCode, byAccount.body.trim()]).toEqual([400, tenantError('tenant1')]);
  });
});

describe('GET /recipe/users/by-email', () => {
  const t = useTestApp({}, { truncateEach: true });

  it('lists the third-party users having exactly that email, oldest first, normalising the input', async () => {
    const github = await insertUser(t.db, { recipeId: 'thirdparty', thirdPartyId: 'github', email: 'a@example.com', timeJoined: 2000 });
    const google = await insertUser(t.db, { recipeId: 'thirdparty', thirdPartyId: 'google', email: 'a@example.com', timeJoined: 1000 });
    await mapUser(t.db, github.userId, 'old-github');
    await insertUser(t.db, { recipeId: 'emailpassword', email: 'a@example.com' });
    await insertUser(t.db, { recipeId: 'thirdparty', email: 'ab@example.com' });
    const reply = await call(t.app, 'GET', '/recipe/users/by-email', { query: { email: ' A@EXAMPLE.com ' } });
    expect(reply.json).toEqual({ status: 'OK', users: [expectedUser(google), expectedUser(github, { externalId: 'old-github' })] });
  });

  it('answers an empty list for an unknown email', async () => {
    expect((await call(t.app, 'GET', '/recipe/users/by-email', { query: { email: 'x@example.com' } })).json).toEqual({
      status: 'OK',
      users: [],
    });
  });

  it('requires email', async () => {
    const reply = await call(t.app, 'GET', '/recipe/users/by-email');
    expect([reply.statusCode, reply.body]).toEqual([400, "Field name 'email' is missing in GET request\n"]);
  });

  it('is tenant-scoped', async () => {
    const reply = await call(t.app, 'GET', '/tenant1/recipe/users/by-email', { query: { email: 'a@example.com' } });
    expect([reply.statusCode, reply.body.trim()]).toEqual([400, tenantError('tenant1')]);
  });
});
