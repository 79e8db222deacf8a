import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, countRows } from '../helper.js';
import { bcryptHash, makeTempDir } from './fixtures.js';
import { apiKey, migrateArgs, runNotingRequests, startCore, type RunningCore } from './harness.js';

describe('migrate: a fresh run into a core without users does not look its users up', () => {
  const temp = makeTempDir();
  let core: RunningCore;
  const hash = bcryptHash('pw');
  const lines = Array.from({ length: 30 }, (_, i) => ({
    externalUserId: `old-${i + 1}`,
    email: `user-${i + 1}@example.com`,
    passwordHash: hash,
  }));
  let file: string;
  beforeAll(async () => {
    core = await startCore();
    file = temp.file('users.ndjson', lines.map((line) => JSON.stringify(line)).join('\n'));
  });
  afterAll(async () => {
    await core.t.close();
    temp.remove();
  });

  // The run through a proxy that notes every request; countAnswer stands for the core's answer to GET /users/count.
  const runThroughProxy = (extra: string[], countAnswer?: number) =>
    runNotingRequests(
      core,
      (throughProxy) => [...migrateArgs(throughProxy, 'ndjson', file, '--batch-size', '10'), ...extra],
      (path) =>
        countAnswer !== undefined && path === '/users/count'
          ? { status: 200, body: JSON.stringify({ status: 'OK', count: countAnswer }) }
          : undefined,
    );

  it('imports every user without a lookup; run again, it looks them up and sends nobody twice', async () => {
    const first = await runThroughProxy([]);
    expect(first.result.code, first.result.stderr).toBe(0);
    expect(first.requests).toContain('GET /users/count');
    expect(first.requests.filter((request) => request === 'POST /bulk-import/users')).toHaveLength(3);
    expect(first.requests).not.toContain('POST /bulk-import/users/lookup');
    expect(first.result.stdout).toMatch(/imported\s+30\n/);
    expect(await countRows(core.t.db, 'users')).toBe(30);

    const again = await runThroughProxy(['--restart']);
    expect(again.result.code, again.result.stderr).toBe(0);
    expect(again.requests).toContain('POST /bulk-import/users/lookup');
    expect(again.requests).not.toContain('POST /bulk-import/users');
    expect(again.result.stdout).toMatch(/already in the core before this run\s+30\n/);
    expect(await countRows(core.t.db, 'users')).toBe(30);
  });

  it('an account someone else took after the count is refused by the import, named, and not duplicated', async () => {
    await core.t.db.pool.query('TRUNCATE users, user_ids, user_id_mappings CASCADE');
    const other = {
      externalUserId: 'someone-else',
      loginMethods: [{ recipeId: 'emailpassword', email: 'user-7@example.com', passwordHash: hash, hashingAlgorithm: 'bcrypt' }],
    };
    expect((await call(core.t.app, 'POST', '/bulk-import/import', { body: other, headers: { 'api-key': apiKey } })).statusCode).toBe(200);

    const { result, requests } = await runThroughProxy(['--restart'], 0);

    // Nothing is looked up before it is sent; what the core did not take whole is looked up by the ids it gave.
    expect(requests.indexOf('POST /bulk-import/users/lookup')).toBeGreaterThan(requests.indexOf('POST /bulk-import/users'));
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/imported\s+29\n/);
    expect(result.stdout).toContain(
      'old-7 (record 7, failed in the core): E003: A user with email user-7@example.com already exists in emailpassword loginMethod.',
    );
    const { rows } = await core.t.db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM users WHERE email = 'user-7@example.com'");
    expect(rows[0].n).toBe(1);
    expect(await countRows(core.t.db, 'users')).toBe(30);
    // As every user the import refuses: a failed queue row that says why.
    const queue = await core.t.db.pool.query<{ status: string; error_message: string }>(
      'SELECT status, error_message FROM bulk_import_users',
    );
    expect(queue.rows).toEqual([
      { status: 'FAILED', error_message: 'E003: A user with email user-7@example.com already exists in emailpassword loginMethod.' },
    ]);
  });
});
