import { spawn } from 'node:child_process';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildIfStale } from '../../scripts/build-if-stale.mjs';
import { countRows } from '../helper.js';
import { bcryptHash, makeTempDir } from './fixtures.js';
import { apiKey, migrateArgs, runCommand, startCore, type RunningCore } from './harness.js';

const passwordHash = bcryptHash('same-pw');
const readReport = (file: string) => JSON.parse(fs.readFileSync(`${file}.migrate-report.json`, 'utf8'));

/** The built command under a 512 MB heap, as its own process: a file that grew it past that would crash it. */
function spawnLimited(args: string[]) {
  const child = spawn(process.execPath, ['--max-old-space-size=512', 'dist/cli/main.js', ...args], {
    env: { PATH: process.env.PATH ?? '', IDENTITY_CORE_API_KEY: apiKey },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, exited };
}

/** Resolves once the process holds the file open (Linux: its descriptors in /proc), however slowly it started. */
async function opened(pid: number, file: string): Promise<void> {
  const target = fs.realpathSync(file);
  const holds = () => {
    try {
      return fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === target;
        } catch {
          return false;
        }
      });
    } catch {
      return false;
    }
  };
  while (!holds()) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** A gzip file that decompresses to `megabytes` MiB of zeros (one line without an end), written without holding it. */
async function gzipBomb(path: string, megabytes: number): Promise<void> {
  const gzip = zlib.createGzip({ level: 9 });
  const out = fs.createWriteStream(path);
  gzip.pipe(out);
  const block = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < megabytes; i++) if (!gzip.write(block)) await new Promise<void>((resolve) => gzip.once('drain', () => resolve()));
  gzip.end();
  await new Promise<void>((resolve) => out.on('finish', () => resolve()));
}

describe('migrate: hostile files are refused with a clear message, in bounded memory', () => {
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

  it('a gzip bomb (1 GiB of zeros in ~1 MB) is refused as one, without crashing a 512 MB command', async () => {
    const file = `${temp.dir}/users.ndjson.gz`;
    await gzipBomb(file, 1024);
    expect(fs.statSync(file).size).toBeLessThan(2 * 1024 * 1024);
    const { code, stderr } = await spawnLimited(migrateArgs(core, 'ndjson', file)).exited;
    expect(stderr).not.toContain('heap out of memory');
    expect(stderr).toContain(`${file} decompresses to more than 200 times its size: refused as a gzip bomb`);
    expect(code).toBe(2);
    // Refused by the export's digest pass, before the run wrote anything: no report of zeros, no run files.
    expect(fs.existsSync(`${file}.migrate-report.json`)).toBe(false);
    expect(fs.existsSync(`${file}.migrate-state.json`)).toBe(false);
    expect(await countRows(core.t.db, 'users')).toBe(0);
  }, 60_000);

  it('a 1 GiB line is one invalid record named with its size, read in bounded memory; the users after it are imported', async () => {
    const file = `${temp.dir}/users.ndjson`;
    // Sparse: 1 GiB of NUL bytes with no line end, then one good user.
    fs.writeFileSync(file, '');
    fs.truncateSync(file, 1024 * 1024 * 1024);
    fs.appendFileSync(file, `\n${JSON.stringify({ externalUserId: 'old-2', email: 'user2@example.com', passwordHash })}\n`);
    const { code, stderr } = await spawnLimited(migrateArgs(core, 'ndjson', file)).exited;
    expect(stderr).not.toContain('heap out of memory');
    expect(code, stderr).toBe(1);
    const report = readReport(file);
    expect(report.totals).toMatchObject({ read: 2, imported: 1, invalid: 1 });
    expect(report.notImported).toEqual([
      { user: 'record 1', record: 1, stage: 'source', reason: 'is longer than 4 MiB (1073741824 characters): not read' },
    ]);
    expect(await countRows(core.t.db, 'users')).toBe(1);
  }, 120_000);

  it.each([
    // Milliseconds after the command opened the export (by then it listens for signals).
    ['while the export is digested', 4, 500],
    ['while a record too long to yield is being read', 16, 3000],
  ])(
    'SIGTERM is honoured %s',
    async (_when, gibibytes, afterMs) => {
      const file = `${temp.dir}/users.ndjson`;
      // Sparse: NUL bytes and no line end (its digest takes seconds, reading it more).
      fs.writeFileSync(file, '');
      fs.truncateSync(file, gibibytes * 1024 * 1024 * 1024);
      const command = spawnLimited(migrateArgs(core, 'ndjson', file));
      await opened(command.child.pid!, file);
      await new Promise((resolve) => setTimeout(resolve, afterMs));
      command.child.kill('SIGTERM');
      const { code, stderr } = await command.exited;
      expect(stderr).toContain('SIGTERM: stopping after the request in flight');
      expect(stderr).not.toContain('heap out of memory');
      expect(code, stderr).toBe(143);
      expect(await countRows(core.t.db, 'users')).toBe(0);
    },
    60_000,
  );

  it('a truncated .gz is refused by the digest pass: a clear message, and nothing sent', async () => {
    const lines = Array.from({ length: 600 }, (_, i) =>
      JSON.stringify({ externalUserId: `old-${i}`, email: `u${i}@example.com`, passwordHash }),
    );
    const whole = zlib.gzipSync(`${lines.join('\n')}\n`);
    const file = temp.file('users.ndjson.gz', '');
    // Only the trailer (CRC and size) missing: every user is there to read.
    for (const cut of [whole.length - 8, Math.floor(whole.length * 0.7)]) {
      fs.writeFileSync(file, whole.subarray(0, cut));
      const result = await runCommand([...migrateArgs(core, 'ndjson', file), '--batch-size', '50', '--restart']);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`${file} is a truncated gzip file (it ends before its data does): download or export it again`);
      expect(result.stderr).not.toContain('    at ');
      expect(await countRows(core.t.db, 'users')).toBe(0);
      expect(await countRows(core.t.db, 'bulk_import_users')).toBe(0);
    }
  });

  it('a .gz whose data is corrupted is refused before anything is sent', async () => {
    const whole = zlib.gzipSync(`${JSON.stringify({ externalUserId: 'old-1', email: 'u1@example.com', passwordHash })}\n`);
    const file = temp.file('users.ndjson.gz', '');
    const corrupted = Buffer.from(whole);
    corrupted.writeUInt32LE((corrupted.readUInt32LE(corrupted.length - 8) ^ 1) >>> 0, corrupted.length - 8);
    fs.writeFileSync(file, corrupted);
    const result = await runCommand([...migrateArgs(core, 'ndjson', file), '--restart']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`${file} is not a readable gzip file (incorrect data check)`);
    expect(await countRows(core.t.db, 'users')).toBe(0);
  });

  it('a Firebase users element that is not an object is one invalid record, not a file of 0 users', async () => {
    const file = temp.file(
      'users.json',
      JSON.stringify({
        users: [[{ localId: 'a', email: 'a@example.com' }], 'b', { localId: 'c', email: 'c@example.com', emailVerified: true }],
      }),
    );
    const result = await runCommand(migrateArgs(core, 'firebase', file));
    expect(result.code, result.stderr).toBe(1);
    const report = readReport(file);
    expect(report.totals).toMatchObject({ read: 3, imported: 1, invalid: 2 });
    expect(report.notImported).toEqual([
      { user: 'record 1', record: 1, stage: 'source', reason: 'users[0] is not an object (an array)' },
      { user: 'record 2', record: 2, stage: 'source', reason: 'users[1] is not an object (a string)' },
    ]);
    expect(await countRows(core.t.db, 'users')).toBe(1);
  });
});
