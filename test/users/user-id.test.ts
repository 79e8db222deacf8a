import { describe, expect, it } from 'vitest';
import { call, snapshot, useTestApp } from '../helper.js';
import { expectedUser, forceMapUser, insertUser, verifyEmail } from './fixtures.js';

describe('GET /user/id', () => {
  const t = useTestApp({}, { truncateEach: true });

  const getUser = (userId: string, headers: Record<string, string> = {}, url = '/user/id') =>
    call(t.app, 'GET', url, { query: { userId }, headers });

  it.each(['emailpassword', 'passwordless', 'thirdparty'] as const)('finds a %s user by internal id', async (recipeId) => {
    const user = await insertUser(t.db, {
      recipeId,
      email: 'a@example.com',
      phoneNumber: recipeId === 'passwordless' ? '+14155552671' : null,
    });
    await verifyEmail(t.db, user.userId, 'a@example.com');
    expect((await getUser(user.userId)).json).toEqual({ status: 'OK', user: expectedUser(user, { verified: true }) });
  });

  it('reports a passwordless user without email as verified', async () => {
    const user = await insertUser(t.db, { recipeId: 'passwordless', email: null, phoneNumber: '+14155552671' });
    expect((await getUser(user.userId)).json).toEqual({ status: 'OK', user: expectedUser(user, { verified: true }) });
  });

  it('accepts the external id and answers with it; the internal id wins when a string is both', async () => {
    const mapped = await insertUser(t.db, { email: 'mapped@example.com' });
    const other = await insertUser(t.db, { email: 'other@example.com' });
    await forceMapUser(t.db, mapped.userId, other.userId);
    expect((await getUser(mapped.userId)).json).toEqual({ status: 'OK', user: expectedUser(mapped, { externalId: other.userId }) });
    expect((await getUser(other.userId)).json).toEqual({ status: 'OK', user: expectedUser(other) });
  });

  it('answers UNKNOWN_USER_ID_ERROR for an unknown id', async () => {
    expect((await getUser('nobody')).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
  });

  it('keeps the login-method shape at every cdi-version, webauthn only from 5.3', async () => {
    const user = await insertUser(t.db);
    expect((await getUser(user.userId, { 'cdi-version': '2.21' })).json).toEqual({
      status: 'OK',
      user: expectedUser(user, { webauthn: false }),
    });
    expect((await getUser(user.userId, { 'cdi-version': '5.2' })).json).toEqual({
      status: 'OK',
      user: expectedUser(user, { webauthn: false }),
    });
  });

  it('requires userId and is app-scoped', async () => {
    const before = await snapshot(t.db);
    const missing = await call(t.app, 'GET', '/user/id');
    expect([missing.statusCode, missing.body]).toEqual([400, "Field name 'userId' is missing in GET request\n"]);
    const tenant = await getUser('x', {}, '/tenant1/user/id');
    expect([tenant.statusCode, tenant.body]).toEqual([403, 'Only public tenantId can call this app specific API\n']);
    expect(await snapshot(t.db)).toEqual(before);
  });
});
