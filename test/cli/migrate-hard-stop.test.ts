import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildIfStale } from '../../scripts/build-if-stale.mjs';
import { call } from '../helper.js';
import { bcryptHash, makeTempDir } from './fixtures.js';
import { apiKey, migrateArgs, runCommand, signIn, startCore, startProxy, type RunningCore } from './harness.js';

const ndjson = (lines: object[]) => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
const passwordHash = bcryptHash('same-pw');
const users = Array.from({ length: 40 }, (_, i) => ({ externalUserId: `old-${i + 1}`, email: `user${i + 1}@example.com`, passwordHash }));
const readReport = (file: string) => JSON.parse(fs.readFileSync(`${file}.migrate-report.json`, 'utf8'));

/** What the core holds, as rows a test can compare whole. */
async function coreHolds(core: RunningCore) {
  const { rows } = await core.t.db.pool.query<{ email: string; external_user_id: string | null }>(
    `SELECT u.email, m.external_user_id FROM users u LEFT JOIN user_id_mappings m USING (user_id) ORDER BY u.email`,
  );
  const queue = await core.t.db.pool.query<{ count: string }>('SELECT count(*) FROM bulk_import_users');
  return { users: rows.map((row) => `${row.email} ${row.external_user_id ?? '-'}`), queueRows: Number(queue.rows[0].count) };
}

// In the core before any run: one user of the export (imported earlier) and one who is not in it.
const before = ['bystander@example.com -', 'user1@example.com old-1'];
const afterOneCleanRun = {
  users: [
    'bystander@example.com -',
    ...users.map((user) => `${user.email} ${user.externalUserId}`).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
  ],
  queueRows: 0,
};

/** The built command as its own process, as an operator runs it; the test kills it with SIGKILL. */
function spawnCommand(args: string[]) {
  const child = spawn(process.execPath, ['dist/cli/main.js', ...args], {
    env: { PATH: process.env.PATH ?? '', IDENTITY_CORE_API_KEY: apiKey },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ signal: NodeJS.Signals | null; output: string }>((resolve) =>
    child.on('exit', (_code, signal) => resolve({ signal, output })),
  );
  return { child, exited };
}

type KillPoint = { name: string; route: string; count: number; when: 'request' | 'reply' };

// Batches of 5: each is looked up, sent, then its ids confirmed by a second lookup.
const killPoints: KillPoint[] = [
  { name: 'before the core receives the third batch', route: 'POST /bulk-import/users', count: 3, when: 'request' },
  { name: 'after the core took the third batch, before its answer arrives', route: 'POST /bulk-import/users', count: 3, when: 'reply' },
  { name: 'while a later batch is looked up', route: 'POST /bulk-import/users/lookup', count: 8, when: 'request' },
];

describe('migrate: a run killed with SIGKILL can be undone and re-run', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let core: RunningCore;
  beforeAll(() => {
    buildIfStale(process.cwd());
  }, 240_000);
  beforeEach(async () => {
    temp = makeTempDir();
    core = await startCore();
    const headers = { 'api-key': apiKey };
    const old = {
      externalUserId: 'old-1',
      loginMethods: [{ recipeId: 'emailpassword', email: 'user1@example.com', passwordHash, hashingAlgorithm: 'bcrypt' }],
    };
    const other = {
      loginMethods: [{ recipeId: 'emailpassword', email: 'bystander@example.com', passwordHash, hashingAlgorithm: 'bcrypt' }],
    };
    expect((await call(core.t.app, 'POST', '/bulk-import/import', { body: old, headers })).statusCode).toBe(200);
    expect((await call(core.t.app, 'POST', '/bulk-import/import', { body: other, headers })).statusCode).toBe(200);
  });
  afterEach(async () => {
    await core.t.close();
    temp.remove();
  });

  /** Runs the command through a proxy that kills it at the given point; returns how many users the core holds then. */
  async function killedRun(file: string, point: KillPoint): Promise<number> {
    let command: ReturnType<typeof spawnCommand> | undefined;
    const matches = (method: string, path: string, count: number) => `${method} ${path}` === point.route && count === point.count;
    const proxy = await startProxy(
      core.url,
      (method, path, _status, count) => {
        if (point.when !== 'reply' || !matches(method, path, count)) return 'forward';
        command?.child.kill('SIGKILL');
        return 'drop';
      },
      (method, path, count) => {
        if (point.when !== 'request' || !matches(method, path, count)) return 'forward';
        command?.child.kill('SIGKILL');
        return 'drop';
      },
    );
    try {
      // The report names the proxy as the core's address: undo and the re-run are pointed at the core itself.
      command = spawnCommand([...migrateArgs({ ...core, url: proxy.url }, 'ndjson', file), '--batch-size', '5']);
      const { signal, output } = await command.exited;
      expect(signal, output).toBe('SIGKILL');
    } finally {
      await proxy.close();
    }
    return (await coreHolds(core)).users.length;
  }

  it.each(killPoints)(
    'killed $name: undo leaves the core as before the run, and the same command then imports everything again',
    async (point) => {
      const file = temp.file('users.ndjson', ndjson(users));
      const held = await killedRun(file, point);
      expect(held).toBeGreaterThan(before.length);
      expect(held).toBeLessThan(afterOneCleanRun.users.length);
      expect(readReport(file)).toMatchObject({ running: true, partial: true, created: [] });

      const undo = await runCommand(['migrate', 'undo', `${file}.migrate-report.json`, '--core-url', core.url]);
      expect(undo.code, undo.stderr).toBe(0);
      expect(undo.stderr).toContain('is the report of a run that did not write its end: undoing what its side files say it sent');
      expect(undo.stdout).toContain(`removed             ${held - before.length}\n`);
      expect(await coreHolds(core)).toEqual({ users: before, queueRows: 0 });
      expect(await signIn(core, 'user1@example.com', 'same-pw')).toBe('OK');

      const again = await runCommand([...migrateArgs(core, 'ndjson', file), '--batch-size', '5']);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).not.toContain('resuming');
      expect(readReport(file).totals).toMatchObject({ read: 40, imported: 39, alreadyImported: 1, failed: 0, stillQueued: 0 });
      expect(await coreHolds(core)).toEqual(afterOneCleanRun);
    },
  );

  it.each(killPoints)(
    'killed $name: a plain re-run ends as one clean run, and its report lists every user the run created',
    async (point) => {
      const file = temp.file('users.ndjson', ndjson(users));
      await killedRun(file, point);

      const resumed = await runCommand([...migrateArgs(core, 'ndjson', file), '--batch-size', '5']);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(await coreHolds(core)).toEqual(afterOneCleanRun);
      const report = readReport(file);
      expect(report.totals).toMatchObject({ read: 40, imported: 39, alreadyImported: 1, failed: 0, invalid: 0, stillQueued: 0 });
      expect(report.created.map((user: { user: string }) => user.user)).toEqual(users.slice(1).map((user) => user.externalUserId));
      for (const user of [users[1], users[14], users[39]]) expect(await signIn(core, user.email, 'same-pw')).toBe('OK');

      const undo = await runCommand(['migrate', 'undo', `${file}.migrate-report.json`]);
      expect(undo.code, undo.stderr).toBe(0);
      expect(undo.stdout).toContain('removed             39\n');
      expect(await coreHolds(core)).toEqual({ users: before, queueRows: 0 });
    },
  );

  it('a fresh run after a kill keeps the killed run undoable: its report and side files are kept beside the new ones', async () => {
    const file = temp.file('users.ndjson', ndjson(users));
    const held = await killedRun(file, killPoints[1]);
    const restarted = await runCommand([...migrateArgs(core, 'ndjson', file), '--restart']);
    expect(restarted.code, restarted.stderr).toBe(0);
    const killedRunUsers = held - before.length;
    expect(readReport(file).totals).toMatchObject({ read: 40, imported: 39 - killedRunUsers, alreadyImported: 1 + killedRunUsers });
    const kept = fs.readdirSync(path.dirname(file)).filter((name) => /\.migrate-report\.previous-.+\.json$/.test(name));
    expect(kept).toHaveLength(1);

    const undoKilled = await runCommand(['migrate', 'undo', path.join(path.dirname(file), kept[0]), '--core-url', core.url]);
    expect(undoKilled.code, undoKilled.stderr).toBe(0);
    expect(undoKilled.stdout).toContain(`removed             ${killedRunUsers}\n`);
    const undoFresh = await runCommand(['migrate', 'undo', `${file}.migrate-report.json`, '--core-url', core.url]);
    expect(undoFresh.code, undoFresh.stderr).toBe(0);
    expect(await coreHolds(core)).toEqual({ users: before, queueRows: 0 });
  });

  it('undo refuses a core other than the one the report names', async () => {
    const file = temp.file('users.ndjson', ndjson(users.slice(0, 5)));
    expect((await runCommand(migrateArgs(core, 'ndjson', file))).code).toBe(0);
    const elsewhere = await startCore();
    try {
      const refused = await runCommand(['migrate', 'undo', `${file}.migrate-report.json`, '--core-url', elsewhere.url]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('undo removes users only from the core the run imported into');
    } finally {
      await elsewhere.t.close();
    }
    expect((await coreHolds(core)).users).toHaveLength(6);
  });
});
