import { describe, expect, it } from 'vitest';
import { call, countRows, snapshot, useTestApp } from '../../helper.js';
import { addMetadata, addRole, expectedUser, insertUser, mapUser, verifyEmail } from '../fixtures.js';

const exists = (doesSuperTokensUserIdExist: boolean, doesExternalUserIdExist: boolean) => ({
  status: 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR',
  doesSuperTokensUserIdExist,
  doesExternalUserIdExist,
});

describe('POST /recipe/userid/map', () => {
  const t = useTestApp({}, { truncateEach: true });

  const map = (body: unknown, headers: Record<string, string> = {}, url = '/recipe/userid/map') =>
    call(t.app, 'POST', url, { body, headers });
  const mappings = async () => (await t.db.pool.query('SELECT * FROM user_id_mappings ORDER BY external_user_id')).rows;

  it('maps a user; from then on the user is shown with the external id and found by it', async () => {
    const user = await insertUser(t.db, { recipeId: 'thirdparty', email: 'a@example.com' });
    const reply = await map({ superTokensUserId: ` ${user.userId}\t`, externalUserId: ' auth0|123 ', externalUserIdInfo: ' from auth0 ' });
    expect([reply.statusCode, reply.json]).toEqual([200, { status: 'OK' }]);
    expect(await mappings()).toEqual([{ user_id: user.userId, external_user_id: 'auth0|123', external_user_id_info: 'from auth0' }]);
    const found = await call(t.app, 'GET', '/user/id', { query: { userId: 'auth0|123' } });
    expect(found.json).toEqual({ status: 'OK', user: expectedUser(user, { externalId: 'auth0|123' }) });
  });

  it('stores no info when externalUserIdInfo is null or absent', async () => {
    const first = await insertUser(t.db);
    const second = await insertUser(t.db);
    expect((await map({ superTokensUserId: first.userId, externalUserId: 'e1', externalUserIdInfo: null })).json).toEqual({ status: 'OK' });
    expect((await map({ superTokensUserId: second.userId, externalUserId: 'e2', force: false })).json).toEqual({ status: 'OK' });
    expect((await mappings()).map((row) => row.external_user_id_info)).toEqual([null, null]);
  });

  it('reports an external id already in use, saying whether it is this user', async () => {
    const user = await insertUser(t.db);
    const other = await insertUser(t.db);
    await mapUser(t.db, user.userId, 'old-1');
    const before = await snapshot(t.db);
    expect((await map({ superTokensUserId: user.userId, externalUserId: 'old-1' })).json).toEqual(exists(true, true));
    expect((await map({ superTokensUserId: other.userId, externalUserId: 'old-1' })).json).toEqual(exists(false, true));
    // Checked before the user itself: an unknown user with a taken external id gets the same answer.
    expect((await map({ superTokensUserId: 'nobody', externalUserId: 'old-1', force: true })).json).toEqual(exists(false, true));
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('reports a user that already has another mapping', async () => {
    const user = await insertUser(t.db);
    await mapUser(t.db, user.userId, 'old-1');
    expect((await map({ superTokensUserId: user.userId, externalUserId: 'old-2', force: true })).json).toEqual(exists(true, false));
  });

  it('answers UNKNOWN_SUPERTOKENS_USER_ID_ERROR for an unknown internal id, even when it is a mapped external id', async () => {
    const user = await insertUser(t.db);
    await mapUser(t.db, user.userId, 'old-1');
    expect((await map({ superTokensUserId: 'nobody', externalUserId: 'x' })).json).toEqual({ status: 'UNKNOWN_SUPERTOKENS_USER_ID_ERROR' });
    expect((await map({ superTokensUserId: 'old-1', externalUserId: 'x' })).json).toEqual({ status: 'UNKNOWN_SUPERTOKENS_USER_ID_ERROR' });
    // Before the force-able 400: the external id below is another user's internal id.
    expect((await map({ superTokensUserId: 'nobody', externalUserId: user.userId })).json).toEqual({
      status: 'UNKNOWN_SUPERTOKENS_USER_ID_ERROR',
    });
  });

  it("refuses an external id that is another user's internal id unless forced", async () => {
    const user = await insertUser(t.db);
    const other = await insertUser(t.db);
    const before = await snapshot(t.db);
    const reply = await map({ superTokensUserId: user.userId, externalUserId: other.userId });
    expect([reply.statusCode, reply.body]).toEqual([
      400,
      'Cannot create a userId mapping where the externalId is also a SuperTokens userID\n',
    ]);
    expect(await snapshot(t.db)).toEqual(before);
    expect((await map({ superTokensUserId: user.userId, externalUserId: other.userId, force: true })).json).toEqual({ status: 'OK' });
  });

  it.each([
    ['UserMetadata', async (id: string) => addMetadata(t.db, id)],
    ['UserRoles', async (id: string) => addRole(t.db, id)],
    [
      'UserMetadata',
      async (id: string) => {
        await addRole(t.db, id);
        await addMetadata(t.db, id);
        await verifyEmail(t.db, id, 'x@example.com');
      },
    ],
  ])('refuses a user with %s data unless forced', async (recipe, addData) => {
    const user = await insertUser(t.db);
    await addData(user.userId);
    const before = await snapshot(t.db);
    const reply = await map({ superTokensUserId: user.userId, externalUserId: 'old-1' });
    expect([reply.statusCode, reply.body]).toEqual([400, `UserId is already in use in ${recipe} recipe\n`]);
    expect(await snapshot(t.db)).toEqual(before);
    expect((await map({ superTokensUserId: user.userId, externalUserId: 'old-1', force: true })).json).toEqual({ status: 'OK' });
  });

  it('checks non-auth data before an existing mapping of the user', async () => {
    const user = await insertUser(t.db);
    await mapUser(t.db, user.userId, 'old-1');
    await addMetadata(t.db, user.userId);
    expect((await map({ superTokensUserId: user.userId, externalUserId: 'old-2' })).body).toBe(
      'UserId is already in use in UserMetadata recipe\n',
    );
  });

  it('keeps email verification valid across the mapping at cdi >= 4.0', async () => {
    const user = await insertUser(t.db, { recipeId: 'thirdparty', email: 'a@example.com' });
    await verifyEmail(t.db, user.userId, 'a@example.com');
    expect((await map({ superTokensUserId: user.userId, externalUserId: 'old-1' }, { 'cdi-version': '4.0' })).json).toEqual({
      status: 'OK',
    });
    const found = await call(t.app, 'GET', '/user/id', { query: { userId: 'old-1' } });
    expect(found.json).toEqual({ status: 'OK', user: expectedUser(user, { externalId: 'old-1', verified: true }) });
  });

  it('refuses pre-existing email verification below cdi 4.0 unless forced', async () => {
    const user = await insertUser(t.db, { email: 'a@example.com' });
    await verifyEmail(t.db, user.userId, 'a@example.com');
    const before = await snapshot(t.db);
    const reply = await map({ superTokensUserId: user.userId, externalUserId: 'old-1' }, { 'cdi-version': '3.1' });
    expect([reply.statusCode, reply.body]).toEqual([400, 'UserId is already in use in EmailVerification recipe\n']);
    expect(await snapshot(t.db)).toEqual(before);
    expect((await map({ superTokensUserId: user.userId, externalUserId: 'old-1', force: true }, { 'cdi-version': '3.1' })).json).toEqual({
      status: 'OK',
    });
  });

  it.each([
    [{ externalUserId: 'e' }, "Field name 'superTokensUserId' is invalid in JSON input"],
    [{ superTokensUserId: 5, externalUserId: 'e' }, "Field name 'superTokensUserId' is invalid in JSON input"],
    [{ superTokensUserId: null, externalUserId: 'e' }, "Field name 'superTokensUserId' is invalid in JSON input"],
    [{ superTokensUserId: 'u' }, "Field name 'externalUserId' is invalid in JSON input"],
    [{ superTokensUserId: 'u', externalUserId: ['e'] }, "Field name 'externalUserId' is invalid in JSON input"],
    [{ superTokensUserId: '', externalUserId: 'e' }, "Field name 'superTokensUserId' cannot be an empty String"],
    [{ superTokensUserId: ' \t\n', externalUserId: 'e' }, "Field name 'superTokensUserId' cannot be an empty String"],
    [{ superTokensUserId: 'u', externalUserId: '  ' }, "Field name 'externalUserId' cannot be an empty String"],
    [{ superTokensUserId: '', externalUserId: '' }, "Field name 'superTokensUserId' cannot be an empty String"],
    [{ superTokensUserId: 'u', externalUserId: 'e', externalUserIdInfo: ' ' }, "Field name 'externalUserIdInfo' cannot be an empty String"],
    [{ superTokensUserId: 'u', externalUserId: 'e', externalUserIdInfo: 5 }, "Field name 'externalUserIdInfo' is invalid in JSON input"],
    [{ superTokensUserId: 'u', externalUserId: 'e', force: 'true' }, "Field name 'force' is invalid in JSON input"],
    [{ superTokensUserId: 'u', externalUserId: 'e', force: null }, "Field name 'force' is invalid in JSON input"],
  ])('rejects %o with 400 and writes nothing', async (body, message) => {
    const user = await insertUser(t.db);
    const before = await snapshot(t.db);
    const reply = await map(JSON.parse(JSON.stringify(body).replace('"u"', JSON.stringify(user.userId))));
    expect([reply.statusCode, reply.body]).toEqual([400, `${message}\n`]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('is app-scoped', async () => {
    const user = await insertUser(t.db);
    const reply = await map({ superTokensUserId: user.userId, externalUserId: 'e' }, {}, '/tenant1/recipe/userid/map');
    expect([reply.statusCode, reply.body]).toEqual([403, 'Only public tenantId can call this app specific API\n']);
    expect(await countRows(t.db, 'user_id_mappings')).toBe(0);
  });

  describe('under concurrency', () => {
    it('creates one mapping when the same request races; the others see it as existing on both sides', async () => {
      const user = await insertUser(t.db);
      const replies = await Promise.all(Array.from({ length: 10 }, () => map({ superTokensUserId: user.userId, externalUserId: 'old-1' })));
      expect(replies.map((reply) => reply.statusCode)).toEqual(Array(10).fill(200));
      expect(replies.filter((reply) => reply.json.status === 'OK')).toHaveLength(1);
      expect(replies.filter((reply) => reply.json.status !== 'OK').map((reply) => reply.json)).toEqual(Array(9).fill(exists(true, true)));
      expect(await countRows(t.db, 'user_id_mappings')).toBe(1);
    });

    it('gives one user one external id when different external ids race for it', async () => {
      const user = await insertUser(t.db);
      const replies = await Promise.all(
        Array.from({ length: 10 }, (_, i) => map({ superTokensUserId: user.userId, externalUserId: `old-${i}` })),
      );
      expect(replies.filter((reply) => reply.json.status === 'OK')).toHaveLength(1);
      expect(replies.filter((reply) => reply.json.status !== 'OK').map((reply) => reply.json)).toEqual(Array(9).fill(exists(true, false)));
    });

    it('gives one external id to one user when different users race for it', async () => {
      const users = await Promise.all(Array.from({ length: 10 }, () => insertUser(t.db)));
      const replies = await Promise.all(users.map((user) => map({ superTokensUserId: user.userId, externalUserId: 'old-1' })));
      expect(replies.filter((reply) => reply.json.status === 'OK')).toHaveLength(1);
      expect(replies.filter((reply) => reply.json.status !== 'OK').map((reply) => reply.json)).toEqual(Array(9).fill(exists(false, true)));
      expect(await countRows(t.db, 'user_id_mappings')).toBe(1);
    });
  });
});
