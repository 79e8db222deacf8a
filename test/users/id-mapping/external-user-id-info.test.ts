import { beforeEach, describe, expect, it } from 'vitest';
import { call, snapshot, truncateAll, useTestApp } from '../../helper.js';
import { insertUser, mapUser, type StoredUser } from '../fixtures.js';

describe('PUT /recipe/userid/external-user-id-info', () => {
  let user: StoredUser;
  const t = useTestApp();
  beforeEach(async () => {
    await truncateAll(t.db);
    user = await insertUser(t.db);
    await mapUser(t.db, user.userId, 'old-1', 'first');
  });

  const put = (body: unknown, url = '/recipe/userid/external-user-id-info') => call(t.app, 'PUT', url, { body });
  const info = async () => (await t.db.pool.query('SELECT external_user_id_info FROM user_id_mappings')).rows[0].external_user_id_info;

  it.each([
    ['SUPERTOKENS', (): string => user.userId],
    ['EXTERNAL', (): string => 'old-1'],
    ['ANY', (): string => user.userId],
    ['ANY', (): string => 'old-1'],
    [undefined, (): string => ' old-1 '],
  ])('updates the info by type %s, trimmed', async (userIdType, id) => {
    const reply = await put({ userId: id(), ...(userIdType && { userIdType }), externalUserIdInfo: '  second ' });
    expect([reply.statusCode, reply.json]).toEqual([200, { status: 'OK' }]);
    expect(await info()).toBe('second');
  });

  it('removes the info with null; GET then omits it', async () => {
    expect((await put({ userId: 'old-1', externalUserIdInfo: null })).json).toEqual({ status: 'OK' });
    expect(await info()).toBeNull();
    expect((await call(t.app, 'GET', '/recipe/userid/map', { query: { userId: 'old-1' } })).json).toEqual({
      status: 'OK',
      superTokensUserId: user.userId,
      externalUserId: 'old-1',
    });
  });

  it.each([
    ['SUPERTOKENS', 'old-1'],
    ['EXTERNAL', 'internal'],
    ['ANY', 'nobody'],
  ])('answers UNKNOWN_MAPPING_ERROR for type %s with %s', async (userIdType, id) => {
    const before = await snapshot(t.db);
    expect((await put({ userId: id === 'internal' ? user.userId : id, userIdType, externalUserIdInfo: 'x' })).json).toEqual({
      status: 'UNKNOWN_MAPPING_ERROR',
    });
    expect(await snapshot(t.db)).toEqual(before);
  });

  it.each([
    [{ userId: 'old-1' }, "Field name 'externalUserIdInfo' is invalid in JSON input"],
    [{ userId: 'old-1', externalUserIdInfo: 3 }, "Field name 'externalUserIdInfo' is invalid in JSON input"],
    [{ userId: 'old-1', externalUserIdInfo: '  ' }, "Field name 'externalUserIdInfo' cannot be an empty String"],
    [{ externalUserIdInfo: 'x' }, "Field name 'userId' is invalid in JSON input"],
    [{ userId: ' ', externalUserIdInfo: 'x' }, "Field name 'userId' cannot be an empty String"],
    [
      { userId: 'old-1', userIdType: 'any', externalUserIdInfo: 'x' },
      "Field name 'userIdType' should be one of 'SUPERTOKENS', 'EXTERNAL' or 'ANY'",
    ],
  ])('rejects %o with 400 and changes nothing', async (body, message) => {
    const before = await snapshot(t.db);
    const reply = await put(body);
    expect([reply.statusCode, reply.body]).toEqual([400, `${message}\n`]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('is app-scoped', async () => {
    const reply = await put({ userId: 'old-1', externalUserIdInfo: 'x' }, '/tenant1/recipe/userid/external-user-id-info');
    expect([reply.statusCode, reply.body]).toEqual([403, 'Only public tenantId can call this app specific API\n']);
  });
});
