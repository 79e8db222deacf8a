import bcrypt from 'bcrypt';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { call, countRows, createTestApp, createTestDatabase, type TestApp, testConfig, truncateAll, useTestApp } from '../helper.js';
import { bcryptHash, emailPasswordUser, importedUsers, passwordlessUser, queueRows, thirdPartyUser } from './fixtures.js';

const enqueue = async (t: TestApp, users: unknown[]) => {
  const reply = await call(t.app, 'POST', '/bulk-import/users', { body: { users } });
  expect(reply.statusCode).toBe(200);
  return reply.json.users as { userId: string; loginMethods: { userId: string }[] }[];
};

describe('background import', () => {
  // Without the background worker, queued rows wait for processUntilEmpty(); one import loop, so a batch is one
  // transaction whatever order the loops claim rows in (the tests of parallel loops make their own core).
  const t = useTestApp({ bulk_migration_sleep_between_rounds_in_batch_ms: 0, bulk_import_worker: false, bulk_migration_parallelism: 1 });
  beforeEach(async () => {
    await truncateAll(t.db);
    await t.db.pool.query("INSERT INTO roles (role) VALUES ('admin'), ('editor')");
  });

  it('starts importing as soon as users are queued (no sweep needed)', async () => {
    const started = await createTestApp({ bulk_migration_sleep_between_rounds_in_batch_ms: 0 });
    try {
      await started.app.services.bulkImportWorker.idle();
      await enqueue(started, [emailPasswordUser(1)]);
      await started.app.services.bulkImportWorker.idle();
      expect(await countRows(started.db, 'users')).toBe(1);
      expect(await countRows(started.db, 'bulk_import_users')).toBe(0);
    } finally {
      await started.close();
    }
  });

  it('imports users of all three recipes with everything that belongs to them, and deletes their rows', async () => {
    const roles = [
      { role: 'admin', tenantIds: ['public'] },
      { role: 'editor', tenantIds: ['public'] },
    ];
    const queued = await enqueue(t, [
      emailPasswordUser(
        1,
        { userMetadata: { plan: 'pro' }, userRoles: roles },
        { isVerified: true, timeJoinedInMSSinceEpoch: 1400000000000 },
      ),
      thirdPartyUser(2, { externalUserId: 'ext-tp-2' }, { isVerified: true }),
      passwordlessUser(3, { externalUserId: 'ext-pl-3' }, { email: 'PL3@example.com', isVerified: false }),
      { loginMethods: [{ recipeId: 'emailpassword', email: 'plain@example.com', plainTextPassword: 'hunter2' }] },
    ]);
    await t.app.services.bulkImportWorker.processUntilEmpty();
    const id = (n: number) => queued[n].loginMethods[0].userId;
    const now = t.clock.nowMs;
    const users = await importedUsers(t.db);
    expect(users).toEqual([
      {
        user_id: id(2),
        recipe_id: 'passwordless',
        time_joined: now,
        email: 'pl3@example.com',
        phone_number: '+14155551003',
        third_party_id: null,
        third_party_user_id: null,
        password_hash: null,
        external_user_id: 'ext-pl-3',
        metadata: null,
        verified: null,
        roles: null,
      },
      {
        user_id: id(3),
        recipe_id: 'emailpassword',
        time_joined: now,
        email: 'plain@example.com',
        phone_number: null,
        third_party_id: null,
        third_party_user_id: null,
        password_hash: expect.stringMatching(/^\$2[ab]\$04\$/),
        external_user_id: null,
        metadata: null,
        verified: null,
        roles: null,
      },
      {
        user_id: id(1),
        recipe_id: 'thirdparty',
        time_joined: now,
        email: 'tp2@example.com',
        phone_number: null,
        third_party_id: 'google',
        third_party_user_id: 'g-2',
        password_hash: null,
        external_user_id: 'ext-tp-2',
        metadata: null,
        verified: ['tp2@example.com'],
        roles: null,
      },
      {
        user_id: id(0),
        recipe_id: 'emailpassword',
        time_joined: 1400000000000,
        email: 'user1@example.com',
        phone_number: null,
        third_party_id: null,
        third_party_user_id: null,
        password_hash: bcryptHash,
        external_user_id: 'ext-ep-1',
        metadata: { plan: 'pro' },
        verified: ['user1@example.com'],
        roles: ['admin', 'editor'],
      },
    ]);
    expect(await bcrypt.compare('hunter2', users[1].password_hash)).toBe(true);
    expect(await queueRows(t.db)).toEqual([]);
  });

  it('fails conflicting users with coded messages and imports their batch-mates', async () => {
    await t.db.pool
      .query(`INSERT INTO users (user_id, recipe_id, time_joined, email, phone_number, third_party_id, third_party_user_id, password_hash) VALUES
      ('old-ep', 'emailpassword', 1, 'user1@example.com', NULL, NULL, NULL, 'h'),
      ('old-tp', 'thirdparty', 1, 'x@example.com', NULL, 'google', 'g-2', NULL),
      ('old-pl', 'passwordless', 1, 'pl@example.com', '+14155551003', NULL, NULL, NULL)`);
    await t.db.pool.query("INSERT INTO user_id_mappings (user_id, external_user_id) VALUES ('old-tp', 'taken')");
    const queued = await enqueue(t, [
      emailPasswordUser(1, { externalUserId: 'a' }),
      thirdPartyUser(2),
      passwordlessUser(3),
      passwordlessUser(4, {}, { phoneNumber: undefined, email: 'pl@example.com' }),
      emailPasswordUser(5, { externalUserId: 'taken' }),
      emailPasswordUser(6, { externalUserId: 'b' }),
      emailPasswordUser(6, { externalUserId: 'c' }),
      thirdPartyUser(7, { externalUserId: 'd' }),
      thirdPartyUser(8, { externalUserId: 'd2' }),
      emailPasswordUser(9, { externalUserId: 'e' }, { isPrimary: true }),
    ]);
    await t.app.services.bulkImportWorker.processUntilEmpty();
    const failed = new Map((await queueRows(t.db)).map((row) => [row.id, [row.status, row.error_message]]));
    const rowId = (n: number) => queued[n].loginMethods[0].userId;
    // Users 5 and 6 share an email: whichever the batch meets first is imported, the other fails.
    const [duplicateWinner, duplicateLoser] = failed.has(rowId(6)) ? [5, 6] : [6, 5];
    expect(failed).toEqual(
      new Map([
        [rowId(0), ['FAILED', 'E003: A user with email user1@example.com already exists in emailpassword loginMethod.']],
        [rowId(1), ['FAILED', 'E005: A user with thirdPartyId google and thirdPartyUserId g-2 already exists in thirdparty loginMethod.']],
        [rowId(2), ['FAILED', 'E007: A user with phoneNumber +14155551003 already exists in passwordless loginMethod.']],
        [rowId(3), ['FAILED', 'E006: A user with email pl@example.com already exists in passwordless loginMethod.']],
        [rowId(4), ['FAILED', 'E031: A user with externalId taken already exists']],
        [rowId(duplicateLoser), ['FAILED', 'E003: A user with email user6@example.com already exists in emailpassword loginMethod.']],
      ]),
    );
    const { rows } = await t.db.pool.query('SELECT user_id FROM users WHERE user_id NOT LIKE $1 ORDER BY user_id', ['old-%']);
    // User 9, marked primary, is imported as a primary user with one login method (AL-11.2).
    expect(rows.map((row) => row.user_id)).toEqual([rowId(duplicateWinner), rowId(7), rowId(8), rowId(9)].sort());
  });

  it('fails rows whose stored data no longer validates, with the list of errors', async () => {
    await enqueue(t, [emailPasswordUser(1, { userRoles: [{ role: 'admin', tenantIds: ['public'] }] })]);
    await t.db.pool.query("DELETE FROM roles WHERE role = 'admin'");
    await t.db.pool.query(`INSERT INTO bulk_import_users (id, raw_data, created_at, updated_at) VALUES
      ('broken', '{"loginMethods": [{"recipeId": "passwordless", "email": "x@example.com"}]}', 1, 1)`);
    await t.app.services.bulkImportWorker.processUntilEmpty();
    expect((await queueRows(t.db)).map((row) => [row.status, row.error_message])).toEqual([
      ['FAILED', '[superTokensUserId is required for a loginMethod]'],
      ['FAILED', '[Role admin does not exist.]'],
    ]);
    expect(await countRows(t.db, 'users')).toBe(0);
  });

  it('picks up rows left PROCESSING by a crashed run', async () => {
    await enqueue(t, [emailPasswordUser(1), emailPasswordUser(2), thirdPartyUser(3)]);
    await t.db.pool.query("UPDATE bulk_import_users SET status = 'PROCESSING'");
    await t.app.services.bulkImportWorker.processUntilEmpty();
    expect(await countRows(t.db, 'users')).toBe(3);
    expect(await queueRows(t.db)).toEqual([]);
  });

  it('leaves rows another transaction holds, and imports them exactly once after that transaction dies', async () => {
    await enqueue(
      t,
      Array.from({ length: 10 }, (_, n) => emailPasswordUser(n)),
    );
    const other = await t.db.pool.connect();
    try {
      await other.query('BEGIN');
      const held = await other.query('SELECT id FROM bulk_import_users ORDER BY id LIMIT 4 FOR UPDATE');
      await t.app.services.bulkImportWorker.processUntilEmpty();
      expect(await countRows(t.db, 'users')).toBe(6);
      expect((await queueRows(t.db)).map((row) => row.id).sort()).toEqual(held.rows.map((row) => row.id));
      // The other core crashes: its transaction rolls back and its locks go away.
      await other.query('ROLLBACK');
    } finally {
      other.release();
    }
    await t.app.services.bulkImportWorker.processUntilEmpty();
    expect(await countRows(t.db, 'users')).toBe(10);
    expect(await countRows(t.db, 'user_id_mappings')).toBe(10);
    expect(await queueRows(t.db)).toEqual([]);
  });

  describe('when the database fails mid-batch', () => {
    afterEach(async () => {
      await t.db.pool.query(
        'DROP TRIGGER IF EXISTS fail_import ON user_metadata; DROP TRIGGER IF EXISTS fail_import ON users; DROP FUNCTION IF EXISTS fail_import()',
      );
    });

    it('rolls back the users and the queue changes together on a transient error, then retries', async () => {
      await t.db.pool.query(`CREATE FUNCTION fail_import() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'simulated serialization failure' USING ERRCODE = '40001'; END $$`);
      await t.db.pool.query('CREATE TRIGGER fail_import BEFORE INSERT ON user_metadata FOR EACH ROW EXECUTE FUNCTION fail_import()');
      await enqueue(t, [emailPasswordUser(1), emailPasswordUser(2, { userMetadata: { a: 1 } }), thirdPartyUser(3)]);
      const before = await queueRows(t.db);
      await expect(t.app.services.bulkImportWorker.processUntilEmpty()).rejects.toThrow('simulated serialization failure');
      expect(await countRows(t.db, 'users')).toBe(0);
      expect(await queueRows(t.db)).toEqual(before);

      await t.db.pool.query('DROP TRIGGER fail_import ON user_metadata');
      await t.app.services.bulkImportWorker.processUntilEmpty();
      expect(await countRows(t.db, 'users')).toBe(3);
      expect(await countRows(t.db, 'user_metadata')).toBe(1);
      expect(await queueRows(t.db)).toEqual([]);
    });

    it("retries a batch user by user when a statement fails on one user's data", async () => {
      await t.db.pool.query(`CREATE FUNCTION fail_import() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.email = 'user2@example.com' THEN RAISE EXCEPTION 'bad row'; END IF; RETURN NEW; END $$`);
      await t.db.pool.query('CREATE TRIGGER fail_import BEFORE INSERT ON users FOR EACH ROW EXECUTE FUNCTION fail_import()');
      const queued = await enqueue(t, [emailPasswordUser(1), emailPasswordUser(2), emailPasswordUser(3)]);
      await t.app.services.bulkImportWorker.processUntilEmpty();
      expect(await queueRows(t.db)).toEqual([
        { id: queued[1].loginMethods[0].userId, status: 'FAILED', error_message: 'Internal error while importing this user' },
      ]);
      const { rows } = await t.db.pool.query('SELECT email FROM users ORDER BY email');
      expect(rows).toEqual([{ email: 'user1@example.com' }, { email: 'user3@example.com' }]);
      expect(await countRows(t.db, 'user_id_mappings')).toBe(2);
    });
  });
});

describe('two cores on one database', () => {
  const overrides = {
    bulk_migration_batch_size: 25,
    bulk_migration_parallelism: 3,
    bulk_migration_sleep_between_rounds_in_batch_ms: 0,
    bulk_import_worker: false,
  };
  const a = useTestApp(overrides);
  const b = useTestApp(overrides, { sharing: a });
  beforeEach(async () => {
    await truncateAll(a.db);
  });

  it('import every user exactly once when both process the same queue', async () => {
    const users = Array.from({ length: 600 }, (_, n) =>
      n % 3 === 0
        ? emailPasswordUser(n)
        : n % 3 === 1
          ? thirdPartyUser(n, { externalUserId: `tp-${n}` })
          : passwordlessUser(n, { externalUserId: `pl-${n}` }),
    );
    await enqueue(a, users.slice(0, 300));
    await enqueue(b, users.slice(300));
    await Promise.all([a.app.services.bulkImportWorker.processUntilEmpty(), b.app.services.bulkImportWorker.processUntilEmpty()]);
    expect(await queueRows(a.db)).toEqual([]);
    expect(await countRows(a.db, 'users')).toBe(600);
    expect(await countRows(a.db, 'user_id_mappings')).toBe(600);
    const { rows } = await a.db.pool.query('SELECT count(DISTINCT external_user_id)::int AS n FROM user_id_mappings');
    expect(rows[0].n).toBe(600);
  });

  it('lets exactly one of two queued duplicates win, whichever core meets it', async () => {
    const users = Array.from({ length: 200 }, (_, n) => emailPasswordUser(n % 100, { externalUserId: `x-${n}` }));
    await enqueue(a, users);
    await Promise.all([a.app.services.bulkImportWorker.processUntilEmpty(), b.app.services.bulkImportWorker.processUntilEmpty()]);
    expect(await countRows(a.db, 'users')).toBe(100);
    const rows = await queueRows(a.db);
    expect(rows).toHaveLength(100);
    for (const row of rows) {
      expect([row.status, row.error_message]).toEqual([
        'FAILED',
        expect.stringMatching(/^E003: A user with email user\d+@example\.com already exists in emailpassword loginMethod\.$/),
      ]);
    }
  });
});

describe('worker lifecycle', () => {
  it('starts when the app is ready, not when it is built', async () => {
    const db = await createTestDatabase();
    const app = await buildApp({ config: testConfig(), pool: db.pool });
    try {
      // The enqueue wakes a worker that has not started: the row stays queued.
      await app.services.bulkImport.addUsers([emailPasswordUser(1)], { dryRun: false });
      await app.services.bulkImportWorker.idle();
      expect([await countRows(db, 'users'), await countRows(db, 'bulk_import_users')]).toEqual([0, 1]);
      await app.ready();
      await app.services.bulkImportWorker.idle();
      expect([await countRows(db, 'users'), await countRows(db, 'bulk_import_users')]).toEqual([1, 0]);
    } finally {
      await app.close();
      await db.drop();
    }
  });

  it('with bulk_import_worker off, a ready core only queues; processUntilEmpty still imports', async () => {
    vi.useFakeTimers({ toFake: ['setInterval'] });
    const t = await createTestApp({ bulk_import_worker: false, bulk_import_interval_seconds: 60 });
    try {
      await enqueue(t, [emailPasswordUser(1)]);
      // Neither the enqueue nor a sweep interval imports anything.
      vi.advanceTimersByTime(120_000);
      await t.app.services.bulkImportWorker.idle();
      expect([await countRows(t.db, 'users'), await countRows(t.db, 'bulk_import_users')]).toEqual([0, 1]);
      await t.app.services.bulkImportWorker.processUntilEmpty();
      expect([await countRows(t.db, 'users'), await countRows(t.db, 'bulk_import_users')]).toEqual([1, 0]);
    } finally {
      vi.useRealTimers();
      await t.close();
    }
  });

  it('sweeps on its interval without any kick, picking up interrupted rows', async () => {
    vi.useFakeTimers({ toFake: ['setInterval'] });
    const t = await createTestApp({ bulk_import_interval_seconds: 60 });
    try {
      await t.app.services.bulkImportWorker.idle();
      await t.db.pool.query(
        `INSERT INTO bulk_import_users (id, status, raw_data, created_at, updated_at) VALUES ('lost', 'PROCESSING', $1, 1, 1)`,
        [
          JSON.stringify({
            id: 'lost',
            loginMethods: [{ recipeId: 'passwordless', email: 'lost@example.com', superTokensUserId: 'lost' }],
          }),
        ],
      );
      vi.advanceTimersByTime(59_000);
      await t.app.services.bulkImportWorker.idle();
      expect(await countRows(t.db, 'users')).toBe(0);
      vi.advanceTimersByTime(1_000);
      await t.app.services.bulkImportWorker.idle();
      expect(await countRows(t.db, 'users')).toBe(1);
      expect(await countRows(t.db, 'bulk_import_users')).toBe(0);
    } finally {
      vi.useRealTimers();
      await t.close();
    }
  });

  it('stop() waits for the batch in flight and leaves every row either imported or queued', async () => {
    const t = await createTestApp({ bulk_migration_batch_size: 20, bulk_migration_parallelism: 2, bulk_import_worker: false });
    try {
      // The signing keys are made in a transaction of their own at start; the locks counted below are the worker's.
      await t.app.services.keys.ready();
      await enqueue(
        t,
        Array.from({ length: 200 }, (_, n) => emailPasswordUser(n)),
      );
      const running = t.app.services.bulkImportWorker.processUntilEmpty();
      await t.app.services.bulkImportWorker.stop();
      await running;
      // No transaction of ours is left holding anything in this schema.
      const { rows } = await t.db.pool.query(
        `SELECT count(*)::int AS held FROM pg_locks l JOIN pg_class c ON c.oid = l.relation JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = $1 AND l.pid <> pg_backend_pid()`,
        [t.db.schema],
      );
      expect(rows[0].held).toBe(0);
      expect((await countRows(t.db, 'users')) + (await countRows(t.db, 'bulk_import_users'))).toBe(200);
      expect(await countRows(t.db, 'users')).toBeLessThan(200);
      // Stopped for good: neither a kick nor an explicit run imports anything now.
      await enqueue(t, [emailPasswordUser(1000)]);
      await t.app.services.bulkImportWorker.processUntilEmpty();
      expect((await countRows(t.db, 'users')) + (await countRows(t.db, 'bulk_import_users'))).toBe(201);
    } finally {
      await t.close();
    }
  });
});
