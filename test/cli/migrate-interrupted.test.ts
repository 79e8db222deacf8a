import { spawn } from 'node:child_process';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildIfStale } from '../../scripts/build-if-stale.mjs';
import { countRows } from '../helper.js';
import { bcryptHash, makeTempDir } from './fixtures.js';
import { apiKey, migrateArgs, runCommand, signIn, startCore, startProxy, type RunningCore } from './harness.js';

const ndjson = (lines: object[]) => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
const passwordHash = bcryptHash('same-pw');
const users = Array.from({ length: 40 }, (_, i) => ({ externalUserId: `old-${i + 1}`, email: `user${i + 1}@example.com`, passwordHash }));
const readReport = (file: string) => JSON.parse(fs.readFileSync(`${file}.migrate-report.json`, 'utf8'));

type Totals = Record<'read' | 'imported' | 'alreadyImported' | 'completed' | 'failed' | 'invalid' | 'skipped' | 'stillQueued', number>;
const addsUp = (t: Totals) => t.imported + t.alreadyImported + t.completed + t.failed + t.invalid + t.skipped + t.stillQueued;

/** The core's own ids of the users it holds. */
async function coreUserIds(core: RunningCore): Promise<string[]> {
  const { rows } = await core.t.db.pool.query<{ user_id: string }>('SELECT user_id FROM users ORDER BY user_id');
  return rows.map((row) => row.user_id);
}

/** `identity-core migrate` as its own process (the built command), as an operator or a service manager runs it. */
function spawnCommand(args: string[]) {
  const child = spawn(process.execPath, ['dist/cli/main.js', ...args], {
    env: { PATH: process.env.PATH ?? '', IDENTITY_CORE_API_KEY: apiKey },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; output: string }>((resolve) => child.on('exit', (code) => resolve({ code, output })));
  return { child, exited };
}

describe('migrate: every interrupted run still writes its report', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let core: RunningCore;
  beforeAll(() => {
    buildIfStale(process.cwd());
  }, 240_000);
  beforeEach(async () => {
    temp = makeTempDir();
    core = await startCore();
  });
  afterEach(async () => {
    await core.t.close();
    temp.remove();
  });

  it('SIGTERM: the real command finishes the batch in flight, writes a partial report that adds up, and exits 143', async () => {
    const file = temp.file('users.ndjson', ndjson(users));
    let command: ReturnType<typeof spawnCommand> | undefined;
    const proxy = await startProxy(core.url, (method, path, _status, count) => {
      if (method === 'POST' && path === '/bulk-import/users' && count === 2) command?.child.kill('SIGTERM');
      return 'forward';
    });
    try {
      command = spawnCommand([...migrateArgs({ ...core, url: proxy.url }, 'ndjson', file), '--batch-size', '5']);
      const { code, output } = await command.exited;
      expect(code, output).toBe(143);
      expect(output).toContain('SIGTERM: stopping after the request in flight');
      expect(output).toMatch(/interrupted: \d+ users handled so far; the report below is partial/);
    } finally {
      await proxy.close();
    }
    // The signal came while the second batch was in flight: that batch is finished, and the run stops within a batch.
    const report = readReport(file);
    const handled = report.totals.read;
    expect(handled % 5 === 0 && handled >= 10 && handled < 40, `${handled} users handled`).toBe(true);
    expect(report.partial).toBe(true);
    expect(report.totals).toEqual({
      read: handled,
      imported: handled,
      alreadyImported: 0,
      failed: 0,
      invalid: 0,
      skipped: 0,
      completed: 0,
      stillQueued: 0,
      withCollisions: 0,
      withDataNotCarried: 0,
    });
    expect(report.created.map((user: { user: string }) => user.user)).toEqual(users.slice(0, handled).map((user) => user.externalUserId));
    expect(report.created.map((user: { userId: string }) => user.userId).sort()).toEqual(await coreUserIds(core));
    expect(await signIn(core, `user${handled}@example.com`, 'same-pw')).toBe('OK');
    expect(await signIn(core, `user${handled + 1}@example.com`, 'same-pw')).toBe('WRONG_CREDENTIALS_ERROR');

    const resumed = await runCommand([...migrateArgs(core, 'ndjson', file), '--batch-size', '5']);
    expect(resumed.code).toBe(0);
    expect(readReport(file).totals).toMatchObject({ read: 40, imported: 40 });
    expect(await countRows(core.t.db, 'users')).toBe(40);
  });

  it('a core lost mid-run: the report is partial, calls nothing imported the core did not confirm, and the run exits 2', async () => {
    const file = temp.file('users.ndjson', ndjson(users));
    let lost = false;
    const proxy = await startProxy(core.url, (method, path, _status, count) => {
      if (method === 'POST' && path === '/bulk-import/users' && count === 3) lost = true;
      return lost ? 'drop' : 'forward';
    });
    let result;
    try {
      result = await runCommand([...migrateArgs({ ...core, url: proxy.url }, 'ndjson', file), '--batch-size', '5', '--retries', '0']);
    } finally {
      await proxy.close();
    }
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('stopped by an error: cannot reach the core');
    expect(result.stderr).toContain('cannot reach the core');
    const report = readReport(file);
    expect(report.partial).toBe(true);
    expect(report.unsettledBecause).toMatch(/^the core could not be asked at the end \(cannot reach the core/);
    // The batches settled before the loss (the first, and the second unless its answer came after the third's),
    // every user counted as still queued, as the core could not be asked at the end.
    const settled = report.totals.read;
    expect([5, 10]).toContain(settled);
    expect(report.totals).toMatchObject({ read: settled, imported: 0, stillQueued: settled });
    expect(report.totals.read).toBe(addsUp(report.totals));
    expect(report.created).toEqual([]);
    expect(result.stdout).toContain('Still queued includes every user not settled');

    // The core kept the third batch (and the fourth, sent while the third was in flight) although their answers were
    // lost; the next run settles everyone, and counts those batches as created by this run (they were sent when the
    // core held none of them), so that undo removes them too.
    expect([15, 20]).toContain(await countRows(core.t.db, 'users'));
    const resumed = await runCommand([...migrateArgs(core, 'ndjson', file), '--batch-size', '5']);
    expect(resumed.code).toBe(0);
    const final = readReport(file);
    expect(final.totals).toMatchObject({ read: 40, imported: 40, alreadyImported: 0 });
    expect(final.created.map((user: { userId: string }) => user.userId).sort()).toEqual(await coreUserIds(core));
    expect(final.totals.read).toBe(addsUp(final.totals));
    expect(await countRows(core.t.db, 'users')).toBe(40);
  });

  it('a .gz cut short is no error mid-run any more: the digest pass refuses it before a batch is sent', async () => {
    const whole = zlib.gzipSync(ndjson(users));
    const file = temp.file('users.ndjson.gz', '');
    fs.writeFileSync(file, whole.subarray(0, Math.floor(whole.length * 0.6)));

    const result = await runCommand([...migrateArgs(core, 'ndjson', file), '--batch-size', '5']);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file} is a truncated gzip file`);
    expect(result.stderr).not.toContain('stopped by an error');
    expect(await countRows(core.t.db, 'users')).toBe(0);
  });
});
