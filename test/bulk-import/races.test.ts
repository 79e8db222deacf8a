import type pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, countRows, truncateAll, useTestApp } from '../helper.js';
import { emailPasswordUser, queueRows } from './fixtures.js';

// A concurrent writer (a sign-up, another core, an admin) commits between the batch's conflict check and its
// INSERT: the batch waits on the row lock, then reports that one user with the coded message, and imports the rest.
describe('writes racing a batch', () => {
  let writer: pg.PoolClient;
  const t = useTestApp({ bulk_migration_parallelism: 1, bulk_import_worker: false });
  beforeEach(async () => {
    await truncateAll(t.db);
    await t.db.pool.query("INSERT INTO roles (role) VALUES ('admin')");
    writer = await t.db.pool.connect();
    await writer.query('BEGIN');
  });
  afterEach(async () => {
    await writer.query('ROLLBACK');
    writer.release();
  });

  // Polls the server (no timers) until the batch is blocked by the writer's uncommitted row.
  async function untilBatchWaitsOnLock(): Promise<void> {
    const {
      rows: [{ pid }],
    } = await writer.query('SELECT pg_backend_pid() AS pid');
    for (let attempt = 0; attempt < 10_000; attempt++) {
      const { rows } = await t.db.pool.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [
        pid,
      ]);
      if (rows[0].n > 0) return;
    }
    throw new Error('the batch never waited on the writer');
  }

  async function processWhileWriterCommits(): Promise<void> {
    const processing = t.app.services.bulkImportWorker.processUntilEmpty();
    await untilBatchWaitsOnLock();
    await writer.query('COMMIT');
    await writer.query('BEGIN');
    await processing;
  }

  async function enqueue(users: unknown[]): Promise<string[]> {
    const reply = await call(t.app, 'POST', '/bulk-import/users', { body: { users } });
    return reply.json.users.map((user: { loginMethods: { userId: string }[] }) => user.loginMethods[0].userId);
  }

  it('an email taken concurrently: E003 for that user only', async () => {
    const [racing] = await enqueue([emailPasswordUser(1), emailPasswordUser(2)]);
    await writer.query(
      "INSERT INTO users (user_id, recipe_id, time_joined, email, password_hash) VALUES ('signed-up', 'emailpassword', 1, 'user1@example.com', 'h')",
    );
    await processWhileWriterCommits();
    expect(await queueRows(t.db)).toEqual([
      {
        id: racing,
        status: 'FAILED',
        error_message: 'E003: A user with email user1@example.com already exists in emailpassword loginMethod.',
      },
    ]);
    expect(await countRows(t.db, 'users')).toBe(2);
  });

  it('an external id mapped concurrently: E031, and the user created for it is removed again', async () => {
    const [racing] = await enqueue([emailPasswordUser(1), emailPasswordUser(2)]);
    await writer.query(
      "INSERT INTO users (user_id, recipe_id, time_joined, email, password_hash) VALUES ('other', 'emailpassword', 1, 'other@example.com', 'h')",
    );
    await writer.query("INSERT INTO user_id_mappings (user_id, external_user_id) VALUES ('other', 'ext-ep-1')");
    await processWhileWriterCommits();
    expect(await queueRows(t.db)).toEqual([
      { id: racing, status: 'FAILED', error_message: 'E031: A user with externalId ext-ep-1 already exists' },
    ]);
    const { rows } = await t.db.pool.query('SELECT email FROM users ORDER BY email');
    expect(rows).toEqual([{ email: 'other@example.com' }, { email: 'user2@example.com' }]);
  });

  it('a role deleted concurrently: E034 for the users holding it', async () => {
    const [racing] = await enqueue([emailPasswordUser(1, { userRoles: [{ role: 'admin', tenantIds: ['public'] }] }), emailPasswordUser(2)]);
    await writer.query("DELETE FROM roles WHERE role = 'admin'");
    await processWhileWriterCommits();
    expect(await queueRows(t.db)).toEqual([
      {
        id: racing,
        status: 'FAILED',
        error_message: 'E034: Role does not exist! You need to pre-create the role before assigning it to the user.',
      },
    ]);
    const { rows } = await t.db.pool.query('SELECT email FROM users');
    expect(rows).toEqual([{ email: 'user2@example.com' }]);
  });
});
