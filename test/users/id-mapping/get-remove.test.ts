import { beforeEach, describe, expect, it } from 'vitest';
import { call, countRows, snapshot, truncateAll, useTestApp } from '../../helper.js';
import { expectedUser, forceMapUser, insertUser, mapUser, type StoredUser } from '../fixtures.js';

const unknownMapping = { status: 'UNKNOWN_MAPPING_ERROR' };

describe('user-id mapping lookup and removal', () => {
  let user: StoredUser;
  const t = useTestApp();
  beforeEach(async () => {
    await truncateAll(t.db);
    user = await insertUser(t.db, { email: 'a@example.com' });
    await mapUser(t.db, user.userId, 'old-1', 'imported');
  });

  const get = (query: Record<string, string>, url = '/recipe/userid/map') => call(t.app, 'GET', url, { query });
  const remove = (body: unknown, url = '/recipe/userid/map/remove') => call(t.app, 'POST', url, { body });
  const found = () => ({ status: 'OK', superTokensUserId: user.userId, externalUserId: 'old-1', externalUserIdInfo: 'imported' });

  describe('GET /recipe/userid/map', () => {
    it.each([
      ['SUPERTOKENS', (): string => user.userId],
      ['EXTERNAL', (): string => 'old-1'],
      ['ANY', (): string => user.userId],
      ['ANY', (): string => 'old-1'],
      [' EXTERNAL ', (): string => ' old-1 '],
    ])('finds the mapping by type %s', async (userIdType, id) => {
      expect((await get({ userId: id(), userIdType })).json).toEqual(found());
    });

    it('defaults to ANY and omits a null externalUserIdInfo', async () => {
      const other = await insertUser(t.db);
      await mapUser(t.db, other.userId, 'old-2');
      expect((await get({ userId: 'old-2' })).json).toEqual({ status: 'OK', superTokensUserId: other.userId, externalUserId: 'old-2' });
    });

    it.each([
      ['SUPERTOKENS', 'old-1'],
      ['EXTERNAL', 'internal'],
      ['ANY', 'nobody'],
    ])('answers UNKNOWN_MAPPING_ERROR for type %s with %s', async (userIdType, id) => {
      expect((await get({ userId: id === 'internal' ? user.userId : id, userIdType })).json).toEqual(unknownMapping);
    });

    it('answers UNKNOWN_MAPPING_ERROR for an unmapped user', async () => {
      const unmapped = await insertUser(t.db);
      expect((await get({ userId: unmapped.userId, userIdType: 'SUPERTOKENS' })).json).toEqual(unknownMapping);
    });

    it('prefers the mapping whose internal id it is when a forced mapping reuses that id as an external id', async () => {
      const other = await insertUser(t.db);
      await forceMapUser(t.db, other.userId, user.userId);
      expect((await get({ userId: user.userId })).json).toEqual(found());
      expect((await get({ userId: user.userId, userIdType: 'EXTERNAL' })).json).toEqual({
        status: 'OK',
        superTokensUserId: other.userId,
        externalUserId: user.userId,
      });
    });

    it.each([
      [{}, "Field name 'userId' is missing in GET request"],
      [{ userId: '' }, "Field name 'userId' cannot be an empty String"],
      [{ userId: '   ' }, "Field name 'userId' cannot be an empty String"],
      [{ userId: 'old-1', userIdType: 'external' }, "Field name 'userIdType' should be one of 'SUPERTOKENS', 'EXTERNAL' or 'ANY'"],
      [{ userId: 'old-1', userIdType: '' }, "Field name 'userIdType' should be one of 'SUPERTOKENS', 'EXTERNAL' or 'ANY'"],
      [{ userId: ' ', userIdType: 'bad' }, "Field name 'userId' cannot be an empty String"],
    ])('rejects %o with 400', async (query, message) => {
      const reply = await get(query);
      expect([reply.statusCode, reply.body]).toEqual([400, `${message}\n`]);
    });

    it('is app-scoped', async () => {
      const reply = await get({ userId: 'old-1' }, '/tenant1/recipe/userid/map');
      expect([reply.statusCode, reply.body]).toEqual([403, 'Only public tenantId can call this app specific API\n']);
    });
  });

  describe('POST /recipe/userid/map/remove', () => {
    it.each([
      ['SUPERTOKENS', (): string => user.userId],
      ['EXTERNAL', (): string => 'old-1'],
      ['ANY', (): string => user.userId],
      ['ANY', (): string => ' old-1 '],
      [undefined, (): string => 'old-1'],
    ])('removes the mapping by type %s; the user shows its internal id again', async (userIdType, id) => {
      const reply = await remove({ userId: id(), ...(userIdType && { userIdType }) });
      expect([reply.statusCode, reply.json]).toEqual([200, { status: 'OK', didMappingExist: true }]);
      expect(await countRows(t.db, 'user_id_mappings')).toBe(0);
      expect((await call(t.app, 'GET', '/user/id', { query: { userId: user.userId } })).json).toEqual({
        status: 'OK',
        user: expectedUser(user),
      });
      expect((await call(t.app, 'GET', '/user/id', { query: { userId: 'old-1' } })).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    });

    it.each([
      ['SUPERTOKENS', 'old-1'],
      ['EXTERNAL', 'internal'],
      ['ANY', 'nobody'],
    ])('answers didMappingExist: false for type %s with %s and keeps the mapping', async (userIdType, id) => {
      const reply = await remove({ userId: id === 'internal' ? user.userId : id, userIdType, force: true });
      expect(reply.json).toEqual({ status: 'OK', didMappingExist: false });
      expect(await countRows(t.db, 'user_id_mappings')).toBe(1);
    });

    it('removes a mapping whose external id is itself a user id by its internal id, whatever the type says', async () => {
      const other = await insertUser(t.db);
      await forceMapUser(t.db, other.userId, user.userId);
      const reply = await remove({ userId: other.userId, userIdType: 'EXTERNAL' });
      expect(reply.json).toEqual({ status: 'OK', didMappingExist: true });
      expect((await t.db.pool.query('SELECT user_id, external_user_id FROM user_id_mappings')).rows).toEqual([
        { user_id: user.userId, external_user_id: 'old-1' },
      ]);
    });

    it('removes by the type given once a mapping is found: ANY finds the own mapping, EXTERNAL then removes the other one', async () => {
      const other = await insertUser(t.db);
      await forceMapUser(t.db, other.userId, user.userId);
      expect((await remove({ userId: user.userId, userIdType: 'EXTERNAL', force: true })).json).toEqual({
        status: 'OK',
        didMappingExist: true,
      });
      expect((await t.db.pool.query('SELECT user_id, external_user_id FROM user_id_mappings')).rows).toEqual([
        { user_id: user.userId, external_user_id: 'old-1' },
      ]);
    });

    it('removes the mapping of a user that has metadata and roles: that data stays with the user', async () => {
      await t.db.pool.query('INSERT INTO user_metadata (user_id, metadata) VALUES ($1, $2)', [user.userId, '{"plan":"pro"}']);
      expect((await remove({ userId: 'old-1' })).json).toEqual({ status: 'OK', didMappingExist: true });
      expect(await countRows(t.db, 'user_metadata')).toBe(1);
    });

    it.each([
      [{}, "Field name 'userId' is invalid in JSON input"],
      [{ userId: 7 }, "Field name 'userId' is invalid in JSON input"],
      [{ userId: '' }, "Field name 'userId' cannot be an empty String"],
      [{ userId: 'old-1', userIdType: 'ANYTHING' }, "Field name 'userIdType' should be one of 'SUPERTOKENS', 'EXTERNAL' or 'ANY'"],
      [{ userId: 'old-1', userIdType: 5 }, "Field name 'userIdType' is invalid in JSON input"],
      [{ userId: 'old-1', force: 'yes' }, "Field name 'force' is invalid in JSON input"],
    ])('rejects %o with 400 and removes nothing', async (body, message) => {
      const before = await snapshot(t.db);
      const reply = await remove(body);
      expect([reply.statusCode, reply.body]).toEqual([400, `${message}\n`]);
      expect(await snapshot(t.db)).toEqual(before);
    });

    it('is app-scoped', async () => {
      const reply = await remove({ userId: 'old-1' }, '/tenant1/recipe/userid/map/remove');
      expect([reply.statusCode, reply.body]).toEqual([403, 'Only public tenantId can call this app specific API\n']);
      expect(await countRows(t.db, 'user_id_mappings')).toBe(1);
    });
  });
});
