import { describe, expect, it } from 'vitest';
import { call, countRows, snapshot, useTestApp } from '../helper.js';
import { addMetadata, addRole, insertUser, mapUser, tablesHoldingUser, verifyEmail } from './fixtures.js';

describe('POST /user/remove', () => {
  const t = useTestApp({}, { truncateEach: true });

  const remove = (body: unknown, url = '/user/remove') => call(t.app, 'POST', url, { body });

  async function userWithEverything(email: string) {
    const user = await insertUser(t.db, { recipeId: 'thirdparty', email });
    await verifyEmail(t.db, user.userId, email);
    await mapUser(t.db, user.userId, `old-${email}`, 'from the old provider');
    await addMetadata(t.db, user.userId);
    await addRole(t.db, user.userId);
    return user;
  }

  it.each([
    ['internal id', (id: string) => id],
    ['external id', (id: string, email: string) => `old-${email}`],
  ])('removes every row of the user given its %s, and nothing of anyone else', async (_name, pick) => {
    const user = await userWithEverything('a@example.com');
    const bystander = await userWithEverything('b@example.com');
    expect(await tablesHoldingUser(t.db, user.userId)).toEqual([
      'users',
      'user_id_mappings',
      'email_verifications',
      'user_metadata',
      'user_roles',
    ]);

    const reply = await remove({ userId: pick(user.userId, 'a@example.com') });
    expect([reply.statusCode, reply.json]).toEqual([200, { status: 'OK' }]);
    expect(await tablesHoldingUser(t.db, user.userId)).toEqual([]);
    expect(await tablesHoldingUser(t.db, bystander.userId)).toEqual([
      'users',
      'user_id_mappings',
      'email_verifications',
      'user_metadata',
      'user_roles',
    ]);
    // Roles themselves are app data, not the user's.
    expect(await countRows(t.db, 'roles')).toBe(1);
    expect((await call(t.app, 'GET', '/user/id', { query: { userId: user.userId } })).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
  });

  it('answers OK for an unknown id and changes nothing', async () => {
    await userWithEverything('a@example.com');
    const before = await snapshot(t.db);
    expect((await remove({ userId: 'nobody', removeAllLinkedAccounts: false })).json).toEqual({ status: 'OK' });
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('keeps passwordless devices, which belong to a contact rather than a user', async () => {
    const user = await insertUser(t.db, { recipeId: 'passwordless', email: 'a@example.com' });
    await t.db.pool.query(
      "INSERT INTO passwordless_devices (tenant_id, device_id_hash, email, link_code_salt, created_at) VALUES ('public', 'hash', 'a@example.com', 'salt', 1)",
    );
    await remove({ userId: user.userId });
    expect([await countRows(t.db, 'users'), await countRows(t.db, 'passwordless_devices')]).toEqual([0, 1]);
  });

  it('removes a user that is removed concurrently by both ids without an error', async () => {
    const user = await userWithEverything('a@example.com');
    const replies = await Promise.all([
      remove({ userId: user.userId }),
      remove({ userId: 'old-a@example.com' }),
      remove({ userId: user.userId }),
    ]);
    expect(replies.map((reply) => [reply.statusCode, reply.json])).toEqual(Array(3).fill([200, { status: 'OK' }]));
    expect(await tablesHoldingUser(t.db, user.userId)).toEqual([]);
  });

  it.each([
    [{}, "Field name 'userId' is invalid in JSON input"],
    [{ userId: 5 }, "Field name 'userId' is invalid in JSON input"],
    [{ userId: null }, "Field name 'userId' is invalid in JSON input"],
    [{ userId: 'x', removeAllLinkedAccounts: 'true' }, "Field name 'removeAllLinkedAccounts' is invalid in JSON input"],
  ])('rejects %o with 400 and removes nothing', async (body, message) => {
    await userWithEverything('a@example.com');
    const before = await snapshot(t.db);
    const reply = await remove(body);
    expect([reply.statusCode, reply.body]).toEqual([400, `${message}\n`]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('is app-scoped', async () => {
    const user = await userWithEverything('a@example.com');
    const reply = await remove({ userId: user.userId }, '/tenant1/user/remove');
    expect([reply.statusCode, reply.body]).toEqual([403, 'Only public tenantId can call this app specific API\n']);
    expect(await countRows(t.db, 'users')).toBe(1);
  });
});
