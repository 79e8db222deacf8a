import { beforeEach, describe, expect, it } from 'vitest';
import { call, countRows, snapshot, truncateAll, useTestApp } from '../helper.js';
import { bcryptHash, emailPasswordUser, importedUsers, passwordlessUser, queueRows, thirdPartyUser } from './fixtures.js';

const uuid = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

// Nothing may depend on the worker: the users must be in before the answer.
const t = useTestApp({ bulk_migration_parallelism: 2, bulk_import_worker: false });
beforeEach(async () => {
  await truncateAll(t.db);
  await t.db.pool.query("INSERT INTO roles (role) VALUES ('admin')");
});

// Holds users locked: every import transaction stops at its first write into users until commit(). blocked() counts
// the transactions waiting on the lock.
async function lockUsers() {
  const client = await t.db.pool.connect();
  await client.query('BEGIN');
  await client.query('LOCK TABLE users IN EXCLUSIVE MODE');
  const {
    rows: [{ pid }],
  } = await client.query('SELECT pg_backend_pid() AS pid');
  return {
    blocked: async () =>
      (await t.db.pool.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [pid])).rows[0]
        .n as number,
    commit: async () => {
      await client.query('COMMIT');
    },
    release: () => client.release(),
  };
}

describe('POST /bulk-import/users?importNow=true', () => {
  it('imports the users before answering; a user the database refuses is left as a FAILED queue row with its reason', async () => {
    const existing = await call(t.app, 'POST', '/bulk-import/users', {
      body: { users: [emailPasswordUser(9)] },
      query: { importNow: 'true' },
    });
    expect(existing.statusCode).toBe(200);
    const users = [
      emailPasswordUser(
        1,
        { userMetadata: { plan: 'pro' }, userRoles: [{ role: 'admin', tenantIds: ['public'] }] },
        { isVerified: true, timeJoinedInMSSinceEpoch: 1500000000000 },
      ),
      thirdPartyUser(2, { externalUserId: 'ext-tp-2' }, { timeJoinedInMSSinceEpoch: 1500000000001 }),
      passwordlessUser(3, {}, { timeJoinedInMSSinceEpoch: 1500000000002 }),
      {
        externalUserId: 'ext-dup',
        loginMethods: [{ recipeId: 'emailpassword', email: 'user9@example.com', passwordHash: bcryptHash, hashingAlgorithm: 'bcrypt' }],
      },
    ];
    const reply = await call(t.app, 'POST', '/bulk-import/users', { body: { users }, query: { importNow: 'true' } });
    expect([reply.statusCode, reply.json]).toEqual([
      200,
      {
        status: 'OK',
        users: [
          {
            userId: 'ext-ep-1',
            loginMethods: [{ recipeId: 'emailpassword', userId: uuid, tenants: ['public'], email: 'user1@example.com' }],
          },
          {
            userId: 'ext-tp-2',
            loginMethods: [
              {
                recipeId: 'thirdparty',
                userId: uuid,
                tenants: ['public'],
                email: 'tp2@example.com',
                thirdpartyId: 'google',
                thirdpartyUserId: 'g-2',
              },
            ],
          },
          {
            userId: uuid,
            loginMethods: [{ recipeId: 'passwordless', userId: uuid, tenants: ['public'], email: null, phoneNumber: '+14155551003' }],
          },
          {
            userId: 'ext-dup',
            loginMethods: [{ recipeId: 'emailpassword', userId: uuid, tenants: ['public'], email: 'user9@example.com' }],
          },
        ],
        imported: 3,
        failed: 1,
      },
    ]);
    const [first, second, third, refused] = reply.json.users;
    expect(await importedUsers(t.db)).toEqual([
      {
        user_id: second.loginMethods[0].userId,
        recipe_id: 'thirdparty',
        time_joined: 1500000000001,
        email: 'tp2@example.com',
        phone_number: null,
        third_party_id: 'google',
        third_party_user_id: 'g-2',
        password_hash: null,
        external_user_id: 'ext-tp-2',
        metadata: null,
        verified: null,
        roles: null,
      },
      {
        user_id: first.loginMethods[0].userId,
        recipe_id: 'emailpassword',
        time_joined: 1500000000000,
        email: 'user1@example.com',
        phone_number: null,
        third_party_id: null,
        third_party_user_id: null,
        password_hash: bcryptHash,
        external_user_id: 'ext-ep-1',
        metadata: { plan: 'pro' },
        verified: ['user1@example.com'],
        roles: ['admin'],
      },
      {
        user_id: expect.any(String),
        recipe_id: 'emailpassword',
        time_joined: t.clock.nowMs,
        email: 'user9@example.com',
        phone_number: null,
        third_party_id: null,
        third_party_user_id: null,
        password_hash: bcryptHash,
        external_user_id: 'ext-ep-9',
        metadata: null,
        verified: null,
        roles: null,
      },
      {
        user_id: third.loginMethods[0].userId,
        recipe_id: 'passwordless',
        time_joined: 1500000000002,
        email: null,
        phone_number: '+14155551003',
        third_party_id: null,
        third_party_user_id: null,
        password_hash: null,
        external_user_id: null,
        metadata: null,
        verified: null,
        roles: null,
      },
    ]);
    expect(await queueRows(t.db)).toEqual([
      {
        id: refused.loginMethods[0].userId,
        status: 'FAILED',
        error_message: 'E003: A user with email user9@example.com already exists in emailpassword loginMethod.',
      },
    ]);
    const failed = await call(t.app, 'GET', '/bulk-import/users', { query: { status: 'FAILED' } });
    expect(
      failed.json.users.map((user: { id: string; status: string; errorMessage: string }) => [user.id, user.status, user.errorMessage]),
    ).toEqual([
      [refused.loginMethods[0].userId, 'FAILED', 'E003: A user with email user9@example.com already exists in emailpassword loginMethod.'],
    ]);
  });

  it('keeps no clear-text password in the FAILED row of a refused user', async () => {
    const first = { loginMethods: [{ recipeId: 'emailpassword', email: 'plain@example.com', plainTextPassword: 'first secret 1' }] };
    const again = { loginMethods: [{ recipeId: 'emailpassword', email: 'plain@example.com', plainTextPassword: 'second secret 2' }] };
    const reply = await call(t.app, 'POST', '/bulk-import/users', { body: { users: [first, again] }, query: { importNow: 'true' } });
    expect(reply.statusCode).toBe(200);
    const { rows } = await t.db.pool.query('SELECT raw_data, error_message FROM bulk_import_users');
    // The two users are imported in parallel transactions, so either one may be the one refused.
    const ids = reply.json.users.map((user: { loginMethods: { userId: string }[] }) => user.loginMethods[0].userId);
    const failedId = rows[0]?.raw_data.id as string;
    expect(ids).toContain(failedId);
    expect(rows).toEqual([
      {
        raw_data: {
          id: failedId,
          loginMethods: [
            {
              recipeId: 'emailpassword',
              email: 'plain@example.com',
              superTokensUserId: failedId,
              // Hashed when validated, as for queued users.
              passwordHash: expect.stringMatching(/^\$2b\$04\$/),
              hashingAlgorithm: 'BCRYPT',
              tenantIds: ['public'],
              isVerified: false,
              isPrimary: false,
              timeJoinedInMSSinceEpoch: t.clock.nowMs,
            },
          ],
        },
        error_message: 'E003: A user with email plain@example.com already exists in emailpassword loginMethod.',
      },
    ]);
    expect(JSON.stringify(rows)).not.toContain('secret');
  }, 30_000);

  it('runs at most bulk_migration_parallelism import transactions at once, over all requests', async () => {
    const locker = await lockUsers();
    try {
      const { blocked } = locker;
      // Three requests of one user each: one transaction each, two of which may run.
      const replies = [1, 2, 3].map((n) =>
        call(t.app, 'POST', '/bulk-import/users', { body: { users: [emailPasswordUser(n)] }, query: { importNow: 'true' } }),
      );
      for (let attempt = 0; attempt < 10_000 && (await blocked()) < 2; attempt++);
      expect(await blocked()).toBe(2);
      // A third transaction, had it been started, would be blocked by now as well.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await blocked()).toBe(2);
      await locker.commit();
      const answers = (await Promise.all(replies)).map((reply) => [reply.statusCode, reply.json.imported, reply.json.failed]);
      expect(answers).toEqual([
        [200, 1, 0],
        [200, 1, 0],
        [200, 1, 0],
      ]);
    } finally {
      locker.release();
    }
    expect(await countRows(t.db, 'users')).toBe(3);
  });

  it('lets in twice bulk_migration_parallelism requests at once; more are refused with a 503 to retry, and write nothing', async () => {
    const locker = await lockUsers();
    try {
      const { blocked } = locker;
      // Four requests: two import (held by the lock), two wait for a slot.
      const replies = [1, 2, 3, 4].map((n) =>
        call(t.app, 'POST', '/bulk-import/users', { body: { users: [emailPasswordUser(n)] }, query: { importNow: 'true' } }),
      );
      for (let attempt = 0; attempt < 10_000 && (await blocked()) < 2; attempt++);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const refused = await call(t.app, 'POST', '/bulk-import/users', {
        body: { users: [emailPasswordUser(5)] },
        query: { importNow: 'true' },
      });
      expect([refused.statusCode, refused.headers['retry-after'], refused.body.trim()]).toEqual([
        503,
        '1',
        'Too many imports at once, retry after 1 seconds',
      ]);
      await locker.commit();
      expect((await Promise.all(replies)).map((reply) => reply.statusCode)).toEqual([200, 200, 200, 200]);
    } finally {
      locker.release();
    }
    expect(await countRows(t.db, 'users')).toBe(4);
    expect((await t.db.pool.query("SELECT count(*)::int AS n FROM users WHERE email = 'user5@example.com'")).rows[0].n).toBe(0);
    // Once they are answered, there is room again.
    const after = await call(t.app, 'POST', '/bulk-import/users', {
      body: { users: [emailPasswordUser(5)] },
      query: { importNow: 'true' },
    });
    expect([after.statusCode, after.json.imported]).toEqual([200, 1]);
  });

  it('refuses a batch with an invalid user like the queue does, and writes nothing', async () => {
    const before = await snapshot(t.db);
    const reply = await call(t.app, 'POST', '/bulk-import/users', {
      body: { users: [emailPasswordUser(1), { loginMethods: [{ recipeId: 'emailpassword', email: 'x@example.com' }] }] },
      query: { importNow: 'true' },
    });
    expect(reply.statusCode).toBe(400);
    expect(reply.json.error).toBe('Data has missing or invalid fields. Please check the users field for more details.');
    expect(reply.json.users.map((entry: { index: number }) => entry.index)).toEqual([1]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('refuses a flag that is neither true nor false, and writes nothing', async () => {
    const before = await snapshot(t.db);
    const reply = await call(t.app, 'POST', '/bulk-import/users', { body: { users: [emailPasswordUser(1)] }, query: { importNow: 'yes' } });
    expect([reply.statusCode, reply.body.trim()]).toEqual([400, "'importNow' should be either 'true' or 'false'"]);
    expect(await snapshot(t.db)).toEqual(before);
  });
});
