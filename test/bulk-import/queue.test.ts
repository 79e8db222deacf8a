import bcrypt from 'bcrypt';
import { describe, expect, it } from 'vitest';
import { call, snapshot, useTestApp } from '../helper.js';
import { emailPasswordUser } from './fixtures.js';

const t = useTestApp({ bulk_import_worker: false }, { truncateEach: true });

// Five rows, one per millisecond, so the order is known: newest first.
async function enqueueFive(): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < 5; n++) {
    const reply = await call(t.app, 'POST', '/bulk-import/users', { body: { users: [emailPasswordUser(n)] } });
    ids.push(reply.json.users[0].loginMethods[0].userId);
    t.clock.advance(1);
  }
  return ids.reverse();
}

describe('GET /bulk-import/users', () => {
  it('lists the stored users newest first with their queue fields, page by page', async () => {
    const ids = await enqueueFive();
    await t.db.pool.query("UPDATE bulk_import_users SET status = 'FAILED', error_message = 'E003: boom' WHERE id = $1", [ids[1]]);
    const first = await call(t.app, 'GET', '/bulk-import/users', { query: { limit: '2' } });
    const created = t.clock.nowMs - 1;
    expect([first.statusCode, first.json.users.map((user: { id: string }) => user.id)]).toEqual([200, ids.slice(0, 2)]);
    expect(first.json.users[1]).toEqual({
      id: ids[1],
      status: 'FAILED',
      errorMessage: 'E003: boom',
      createdAt: created - 1,
      updatedAt: created - 1,
      externalUserId: 'ext-ep-3',
      loginMethods: [
        {
          tenantIds: ['public'],
          isVerified: false,
          isPrimary: false,
          timeJoinedInMSSinceEpoch: created - 1,
          recipeId: 'emailpassword',
          superTokensUserId: ids[1],
          email: 'user3@example.com',
          hashingAlgorithm: 'BCRYPT',
        },
      ],
    });
    expect(first.json.nextPaginationToken).toBe(Buffer.from(`${ids[2]};${created - 2}`).toString('base64'));

    const second = await call(t.app, 'GET', '/bulk-import/users', {
      query: { limit: '2', paginationToken: first.json.nextPaginationToken },
    });
    expect(second.json.users.map((user: { id: string }) => user.id)).toEqual(ids.slice(2, 4));
    const last = await call(t.app, 'GET', '/bulk-import/users', {
      query: { limit: '2', paginationToken: second.json.nextPaginationToken },
    });
    expect(last.json.users.map((user: { id: string }) => user.id)).toEqual(ids.slice(4));
    expect(last.json.nextPaginationToken).toBeUndefined();
    // One codec with GET /users: the token is read as Java's decoder reads it, padding optional.
    const unpadded = await call(t.app, 'GET', '/bulk-import/users', {
      query: { limit: '2', paginationToken: second.json.nextPaginationToken.replace(/=+$/, '') },
    });
    expect(unpadded.json).toEqual(last.json);

    const failed = await call(t.app, 'GET', '/bulk-import/users', { query: { status: 'FAILED' } });
    expect(failed.json.users.map((user: { id: string }) => user.id)).toEqual([ids[1]]);
    const fresh = await call(t.app, 'GET', '/bulk-import/users', { query: { status: 'NEW', limit: '500' } });
    expect(fresh.json.users).toHaveLength(4);
  });

  it('echoes metadata and roles as stored, never a password or a hash; a plain-text password is stored hashed', async () => {
    await t.db.pool.query("INSERT INTO roles (role) VALUES ('admin')");
    const user = {
      externalUserId: 'e1',
      userMetadata: { nested: { list: [1, 'two', null] }, flag: true },
      userRoles: [{ role: 'admin', tenantIds: ['public'] }],
      loginMethods: [{ recipeId: 'emailpassword', email: 'p@example.com', plainTextPassword: 'hunter2', isVerified: true }],
    };
    const queued = await call(t.app, 'POST', '/bulk-import/users', { body: { users: [user] } });
    const id = queued.json.users[0].loginMethods[0].userId;
    const reply = await call(t.app, 'GET', '/bulk-import/users');
    expect(reply.json).toEqual({
      status: 'OK',
      users: [
        {
          id,
          status: 'NEW',
          createdAt: t.clock.nowMs,
          updatedAt: t.clock.nowMs,
          externalUserId: 'e1',
          userMetadata: { nested: { list: [1, 'two', null] }, flag: true },
          userRoles: [{ role: 'admin', tenantIds: ['public'] }],
          loginMethods: [
            {
              tenantIds: ['public'],
              isVerified: true,
              isPrimary: false,
              timeJoinedInMSSinceEpoch: t.clock.nowMs,
              recipeId: 'emailpassword',
              superTokensUserId: id,
              email: 'p@example.com',
              hashingAlgorithm: 'BCRYPT',
            },
          ],
        },
      ],
    });
    const { rows } = await t.db.pool.query('SELECT raw_data::text AS stored FROM bulk_import_users');
    expect(rows[0].stored).not.toContain('hunter2');
    const stored = JSON.parse(rows[0].stored).loginMethods[0];
    expect([stored.plainTextPassword, stored.hashingAlgorithm, await bcrypt.compare('hunter2', stored.passwordHash)]).toEqual([
      undefined,
      'BCRYPT',
      true,
    ]);
  });

  it('answers an empty queue', async () => {
    expect((await call(t.app, 'GET', '/bulk-import/users')).json).toEqual({ status: 'OK', users: [] });
  });

  it.each([
    [{ status: 'new' }, 'Invalid value for status. Pass one of NEW, PROCESSING, or FAILED!'],
    [{ status: '' }, 'Invalid value for status. Pass one of NEW, PROCESSING, or FAILED!'],
    [{ limit: '501' }, 'Max limit allowed is 500'],
    [{ limit: '0' }, 'limit must a positive integer with min value 1'],
    [{ limit: 'ten' }, "Field name 'limit' must be an int in the GET request"],
    [{ limit: '501', status: 'bad' }, 'Max limit allowed is 500'],
    [{ paginationToken: 'not base64!' }, 'invalid pagination token'],
    [{ paginationToken: Buffer.from('no-separator').toString('base64') }, 'invalid pagination token'],
    [{ paginationToken: Buffer.from('id;12x').toString('base64') }, 'invalid pagination token'],
    [{ paginationToken: Buffer.from('a;1;2').toString('base64') }, 'invalid pagination token'],
    [{ paginationToken: 'YTsx=' }, 'invalid pagination token'],
    [{ paginationToken: Buffer.from('a;9223372036854775808').toString('base64') }, 'invalid pagination token'],
  ])('rejects %o', async (query, message) => {
    const reply = await call(t.app, 'GET', '/bulk-import/users', { query: query as Record<string, string> });
    expect([reply.statusCode, reply.body]).toEqual([400, `${message}\n`]);
  });

  it('checks the query before the app scope', async () => {
    expect((await call(t.app, 'GET', '/tenant1/bulk-import/users', { query: { limit: '0' } })).statusCode).toBe(400);
    const reply = await call(t.app, 'GET', '/tenant1/bulk-import/users');
    expect([reply.statusCode, reply.body.trim()]).toEqual([403, 'Only public tenantId can call this app specific API']);
  });
});

describe('GET /bulk-import/users/count', () => {
  it('counts one status, or all with the per-status counts', async () => {
    const ids = await enqueueFive();
    await t.db.pool.query("UPDATE bulk_import_users SET status = 'FAILED' WHERE id = $1", [ids[0]]);
    await t.db.pool.query("UPDATE bulk_import_users SET status = 'PROCESSING' WHERE id = ANY($1)", [ids.slice(1, 3)]);
    expect((await call(t.app, 'GET', '/bulk-import/users/count')).json).toEqual({
      status: 'OK',
      count: 5,
      byStatus: { NEW: 2, PROCESSING: 2, FAILED: 1 },
    });
    expect((await call(t.app, 'GET', '/bulk-import/users/count', { query: { status: 'NEW' } })).json).toEqual({ status: 'OK', count: 2 });
    expect((await call(t.app, 'GET', '/bulk-import/users/count', { query: { status: 'FAILED' } })).json).toEqual({
      status: 'OK',
      count: 1,
    });
    const bad = await call(t.app, 'GET', '/bulk-import/users/count', { query: { status: 'DONE' } });
    expect([bad.statusCode, bad.body.trim()]).toEqual([400, 'Invalid value for status. Pass one of NEW, PROCESSING, or FAILED!']);
  });
});

describe('POST /bulk-import/users/remove', () => {
  it('deletes the given rows and partitions the ids in input order', async () => {
    const ids = await enqueueFive();
    const reply = await call(t.app, 'POST', '/bulk-import/users/remove', { body: { ids: ['unknown', ids[3], ids[0], ids[3]] } });
    expect([reply.statusCode, reply.json]).toEqual([200, { deletedIds: [ids[3], ids[0], ids[3]], invalidIds: ['unknown'] }]);
    const { rows } = await t.db.pool.query('SELECT id FROM bulk_import_users ORDER BY created_at DESC');
    expect(rows.map((row) => row.id)).toEqual([ids[1], ids[2], ids[4]]);
  });

  it('answers an empty list without looking at anything', async () => {
    const reply = await call(t.app, 'POST', '/tenant1/bulk-import/users/remove', { body: { ids: [] } });
    expect([reply.statusCode, reply.body]).toEqual([200, '{"deletedIds":[],"invalidIds":[]}\n']);
  });

  it.each([
    ['ids missing', {}, "Field name 'ids' is invalid in JSON input"],
    ['ids not an array', { ids: 'a' }, "Field name 'ids' is invalid in JSON input"],
    ['an id that is not a string', { ids: ['a', 1] }, "Field name 'ids' is invalid in JSON input"],
    [
      'more than 500 ids, checked before the elements',
      { ids: [...Array(500).fill('a'), 1] },
      "Field name 'ids' cannot contain more than 500 elements",
    ],
    ['an empty id', { ids: ['a', ''] }, "Field name 'ids' cannot contain an empty string"],
  ])('rejects %s', async (_description, body, message) => {
    await enqueueFive();
    const before = await snapshot(t.db);
    const reply = await call(t.app, 'POST', '/bulk-import/users/remove', { body });
    expect([reply.statusCode, reply.body]).toEqual([400, `${message}\n`]);
    expect(await snapshot(t.db)).toEqual(before);
  });
});
