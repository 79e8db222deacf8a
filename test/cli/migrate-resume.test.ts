import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countRows } from '../helper.js';
import { bcryptHash, makeTempDir } from './fixtures.js';
import { migrateArgs, runCommand, signIn, startCore, startProxy, type RunningCore } from './harness.js';

const passwordHash = bcryptHash('same-pw');
const users = Array.from({ length: 5 }, (_, i) => ({ externalUserId: `old-${i + 1}`, email: `user${i + 1}@example.com`, passwordHash }));
const ndjson = `${users.map((user) => JSON.stringify(user)).join('\n')}\n`;

describe('migrate resume', () => {
  let core: RunningCore;
  let temp: ReturnType<typeof makeTempDir>;
  beforeEach(async () => {
    core = await startCore();
    temp = makeTempDir();
  });
  afterEach(async () => {
    await core.t.close();
    temp.remove();
  });

  async function expectAllUsersImported() {
    expect(await countRows(core.t.db, 'users')).toBe(5);
    expect(await countRows(core.t.db, 'bulk_import_users')).toBe(0);
    for (const user of users) expect(await signIn(core, user.email, 'same-pw')).toBe('OK');
  }

  it('continues after Ctrl-C from the first user not acknowledged', async () => {
    const file = temp.file('users.ndjson', ndjson);
    const controller = new AbortController();
    const proxy = await startProxy(core.url, (method, path, _status, count) => {
      if (method === 'POST' && path === '/bulk-import/users' && count === 1) controller.abort();
      return 'forward';
    });
    try {
      const first = await runCommand([...migrateArgs({ ...core, url: proxy.url }, 'ndjson', file), '--batch-size', '2'], { signal: controller.signal });

      expect(first.code).toBe(130);
      expect(first.stderr).toContain('interrupted: 2 users handled so far; run the same command again to continue');
      expect(JSON.parse(fs.readFileSync(`${file}.migrate-state.json`, 'utf8'))).toMatchObject({ recordsDone: 2, usersQueued: 2 });
      expect(fs.existsSync(`${file}.migrate-report.json`)).toBe(false);
    } finally {
      await proxy.close();
    }

    // --max-queued 2: each batch waits until the core has processed the one before.
    const second = await runCommand([...migrateArgs(core, 'ndjson', file), '--batch-size', '2', '--max-queued', '2']);

    expect(second.code).toBe(0);
    expect(second.stderr).toContain('resuming: 2 users of the export were handled by an earlier run');
    const report = JSON.parse(fs.readFileSync(`${file}.migrate-report.json`, 'utf8'));
    expect(report.totals).toEqual({ read: 5, imported: 5, alreadyImported: 0, failed: 0, invalid: 0, skipped: 0, stillQueued: 0, withCollisions: 0 });
    await expectAllUsersImported();
  });

  it('counts users whose batch was stored but never acknowledged as already imported, not as failures', async () => {
    const file = temp.file('users.ndjson', ndjson);
    const controller = new AbortController();
    // The answer to the second batch is lost, as when the process dies right after the core stored it.
    const proxy = await startProxy(core.url, (method, path, _status, count) => {
      if (method !== 'POST' || path !== '/bulk-import/users' || count !== 2) return 'forward';
      controller.abort();
      return 'drop';
    });
    try {
      const first = await runCommand([...migrateArgs({ ...core, url: proxy.url }, 'ndjson', file), '--batch-size', '2'], { signal: controller.signal });
      expect(first.code).toBe(2);
      expect(JSON.parse(fs.readFileSync(`${file}.migrate-state.json`, 'utf8'))).toMatchObject({ recordsDone: 2, usersQueued: 2 });
    } finally {
      await proxy.close();
    }

    const second = await runCommand([...migrateArgs(core, 'ndjson', file), '--batch-size', '2']);

    expect(second.code).toBe(0);
    const report = JSON.parse(fs.readFileSync(`${file}.migrate-report.json`, 'utf8'));
    expect(report.totals).toEqual({ read: 5, imported: 5, alreadyImported: 2, failed: 0, invalid: 0, skipped: 0, stillQueued: 0, withCollisions: 0 });
    expect(report.notImported).toEqual([]);
    await expectAllUsersImported();

    // Once settled, the rows of the duplicates are gone from the queue: a third run reports the same users.
    const third = await runCommand([...migrateArgs(core, 'ndjson', file), '--batch-size', '2']);
    expect(third.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(`${file}.migrate-report.json`, 'utf8')).totals).toMatchObject({ imported: 5, alreadyImported: 0 });
  });

  it('retries a request whose answer was lost, and recognises the duplicate it causes', async () => {
    const file = temp.file('users.ndjson', ndjson);
    const proxy = await startProxy(core.url, (method, path, _status, count) =>
      method === 'POST' && path === '/bulk-import/users' && count === 1 ? 'drop' : 'forward');
    try {
      const result = await runCommand(migrateArgs({ ...core, url: proxy.url }, 'ndjson', file));
      expect(result.code).toBe(0);
    } finally {
      await proxy.close();
    }
    expect(JSON.parse(fs.readFileSync(`${file}.migrate-report.json`, 'utf8')).totals)
      .toEqual({ read: 5, imported: 5, alreadyImported: 5, failed: 0, invalid: 0, skipped: 0, stillQueued: 0, withCollisions: 0 });
    await expectAllUsersImported();
  });

  it('refuses to resume when the export changed, until --restart', async () => {
    const file = temp.file('users.ndjson', ndjson);
    expect((await runCommand(migrateArgs(core, 'ndjson', file))).code).toBe(0);
    fs.appendFileSync(file, `${JSON.stringify({ externalUserId: 'old-6', email: 'user6@example.com', passwordHash })}\n`);

    const refused = await runCommand(migrateArgs(core, 'ndjson', file));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${file} changed since ${file}.migrate-state.json was written, so the saved position is meaningless: pass --restart to start over`);

    const restarted = await runCommand([...migrateArgs(core, 'ndjson', file), '--restart']);
    expect(restarted.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(`${file}.migrate-report.json`, 'utf8')).totals)
      .toMatchObject({ read: 6, imported: 6, alreadyImported: 5, failed: 0 });
    expect(await countRows(core.t.db, 'users')).toBe(6);
  });
});
