import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, countRows } from '../helper.js';
import { bcryptHash, makeTempDir } from './fixtures.js';
import { apiKey, migrateArgs, runCommand, signIn, startCore, startProxy, type RunningCore } from './harness.js';

const ndjson = (lines: object[]) => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
const passwordHash = bcryptHash('same-pw');
const users = Array.from({ length: 6 }, (_, i) => ({ externalUserId: `old-${i + 1}`, email: `user${i + 1}@example.com`, passwordHash }));
const readReport = (file: string) => JSON.parse(fs.readFileSync(`${file}.migrate-report.json`, 'utf8'));
const totals = (values: Partial<Record<string, number>>) => ({
  read: 0,
  imported: 0,
  alreadyImported: 0,
  failed: 0,
  invalid: 0,
  skipped: 0,
  completed: 0,
  stillQueued: 0,
  withCollisions: 0,
  withDataNotCarried: 0,
  ...values,
});

describe('migrate: the report says what the core holds', () => {
  let temp: ReturnType<typeof makeTempDir>;
  const cores: RunningCore[] = [];
  const start = async () => {
    const core = await startCore();
    cores.push(core);
    return core;
  };
  beforeEach(() => {
    temp = makeTempDir();
  });
  afterEach(async () => {
    await Promise.all(cores.splice(0).map((core) => core.t.close()));
    temp.remove();
  });

  it('imports into production after a finished run against staging, instead of resuming staging progress', async () => {
    const [staging, production] = [await start(), await start()];
    const file = temp.file('users.ndjson', ndjson(users));

    expect((await runCommand(migrateArgs(staging, 'ndjson', file))).code).toBe(0);
    const second = await runCommand(migrateArgs(production, 'ndjson', file));

    expect(second.code).toBe(0);
    expect(second.stderr).toContain('holds progress made for another core (its database id differs): starting a fresh run');
    expect(second.stderr).not.toContain('resuming');
    expect(readReport(file).totals).toEqual(totals({ read: 6, imported: 6 }));
    expect(await countRows(production.t.db, 'users')).toBe(6);
    for (const user of users) expect(await signIn(production, user.email, 'same-pw')).toBe('OK');
    expect(await countRows(staging.t.db, 'users')).toBe(6);
  });

  it('sends what changed options add, and counts what is already there as such', async () => {
    const core = await start();
    const file = temp.file(
      'auth0.ndjson',
      ndjson([
        { user_id: 'auth0|a1', email: 'a1@example.com', identities: [{ provider: 'auth0', user_id: 'a1' }] },
        { user_id: 'auth0|a2', email: 'a2@example.com', identities: [{ provider: 'auth0', user_id: 'a2' }] },
        { user_id: 'google-oauth2|g3', email: 'g3@example.com', identities: [{ provider: 'google-oauth2', user_id: 'g3' }] },
        { user_id: 'google-oauth2|g4', email: 'g4@example.com', blocked: true, identities: [{ provider: 'google-oauth2', user_id: 'g4' }] },
      ]),
    );
    const hashes = temp.file(
      'hashes.ndjson',
      ndjson([
        { _id: { $oid: 'a1' }, email: 'a1@example.com', passwordHash: bcryptHash('a1-pw') },
        { _id: { $oid: 'a2' }, email: 'a2@example.com', passwordHash: bcryptHash('a2-pw') },
      ]),
    );

    const forgot = await runCommand(migrateArgs(core, 'auth0', file));
    expect(forgot.code).toBe(1);
    expect(readReport(file).totals).toEqual(totals({ read: 4, imported: 1, invalid: 2, skipped: 1 }));

    const withHashes = await runCommand(migrateArgs(core, 'auth0', file, '--password-hashes', hashes));
    expect(withHashes.stderr).toContain('holds progress made for other options');
    expect(readReport(file).totals).toEqual(totals({ read: 4, imported: 2, alreadyImported: 1, skipped: 1 }));
    expect(await signIn(core, 'a1@example.com', 'a1-pw')).toBe('OK');
    expect(await signIn(core, 'a2@example.com', 'a2-pw')).toBe('OK');

    const withDisabled = await runCommand(migrateArgs(core, 'auth0', file, '--password-hashes', hashes, '--include-disabled'));
    expect(withDisabled.code).toBe(0);
    expect(readReport(file).totals).toEqual(totals({ read: 4, imported: 1, alreadyImported: 3 }));
    expect(readReport(file).created).toEqual([{ user: 'google-oauth2|g4', record: 4, userId: expect.any(String) }]);
    expect(await countRows(core.t.db, 'users')).toBe(4);
  });

  it('recognises a finished import in bulk on a re-run: nothing is sent, no FAILED rows appear, totals add up', async () => {
    const core = await start();
    const file = temp.file('users.ndjson', ndjson([...users, { email: 'no-hash-algo@example.com', passwordHash: 'plain' }]));
    expect((await runCommand(migrateArgs(core, 'ndjson', file))).code).toBe(1);
    let enqueues = 0;
    let userLookups = 0;
    const proxy = await startProxy(core.url, (method, path) => {
      if (method === 'POST' && path === '/bulk-import/users') enqueues++;
      if (path === '/user/id') userLookups++;
      return 'forward';
    });
    try {
      const again = await runCommand([...migrateArgs({ ...core, url: proxy.url }, 'ndjson', file), '--restart']);
      expect(again.code).toBe(1);
    } finally {
      await proxy.close();
    }
    expect([enqueues, userLookups]).toEqual([0, 0]);
    const report = readReport(file);
    expect(report.totals).toEqual(totals({ read: 7, alreadyImported: 6, invalid: 1 }));
    const t = report.totals;
    expect(t.imported + t.alreadyImported + t.completed + t.failed + t.invalid + t.skipped + t.stillQueued).toBe(t.read);
    expect(report.created).toEqual([]);
    expect(await countRows(core.t.db, 'bulk_import_users')).toBe(0);
  });

  it('re-running a finished import, as it is or with --restart, sends no user and asks the core once per batch', async () => {
    const core = await start();
    const there = {
      externalUserId: 'elsewhere-1',
      loginMethods: [{ recipeId: 'emailpassword', email: 'user6@example.com', passwordHash, hashingAlgorithm: 'bcrypt' }],
    };
    expect((await call(core.t.app, 'POST', '/bulk-import/import', { body: there, headers: { 'api-key': apiKey } })).statusCode).toBe(200);
    const twin = { externalUserId: 'twin-1', email: 'USER1@example.com', passwordHash };
    const file = temp.file('users.ndjson', ndjson([...users, twin, { email: 'no-hash-algo@example.com', passwordHash: 'plain' }]));
    const first = await runCommand([...migrateArgs(core, 'ndjson', file), '--batch-size', '2']);
    expect(first.code).toBe(1);
    const expected = totals({ read: 8, imported: 5, failed: 1, invalid: 2 });
    expect(readReport(file).totals).toEqual(expected);
    const created = readReport(file).created;
    expect(created.map((user: { user: string }) => user.user)).toEqual(['old-1', 'old-2', 'old-3', 'old-4', 'old-5']);
    const failedRows = async () =>
      (await core.t.db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM bulk_import_users WHERE status = 'FAILED'")).rows[0].n;
    expect(await failedRows()).toBe(0);

    const requests = new Map<string, number>();
    const proxy = await startProxy(core.url, (method, path) => {
      requests.set(`${method} ${path}`, (requests.get(`${method} ${path}`) ?? 0) + 1);
      return 'forward';
    });
    let again;
    try {
      again = await runCommand([...migrateArgs({ ...core, url: proxy.url }, 'ndjson', file), '--batch-size', '2']);
    } finally {
      await proxy.close();
    }
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('resuming: 8 users of the export were handled by an earlier invocation of this run');
    // Six users in batches of two: the five the first run created are found by their core ids (one lookup per batch);
    // old-6, which it never sent, by its old id and email (one more lookup in the last batch).
    expect(requests.get('POST /bulk-import/users') ?? 0).toBe(0);
    expect(requests.get('GET /user/id') ?? 0).toBe(0);
    expect(requests.get('POST /bulk-import/users/lookup')).toBe(4);
    const report = readReport(file);
    expect(report.totals).toEqual(expected);
    const t = report.totals;
    expect(t.imported + t.alreadyImported + t.completed + t.failed + t.invalid + t.skipped + t.stillQueued).toBe(t.read);
    expect(report.created).toEqual(created);
    expect(report.notImported.map((entry: { user: string; stage: string }) => [entry.user, entry.stage])).toEqual([
      ['old-6', 'conflict'],
      ['twin-1', 'duplicate'],
      ['no-hash-algo@example.com', 'source'],
    ]);
    expect(await failedRows()).toBe(0);
    expect(await countRows(core.t.db, 'users')).toBe(6);
    expect(fs.existsSync(`${file}.migrate-created.ndjson`)).toBe(false);

    requests.clear();
    const again2 = await startProxy(core.url, (method, path) => {
      requests.set(`${method} ${path}`, (requests.get(`${method} ${path}`) ?? 0) + 1);
      return 'forward';
    });
    try {
      const restarted = await runCommand([...migrateArgs({ ...core, url: again2.url }, 'ndjson', file), '--batch-size', '2', '--restart']);
      expect(restarted.code).toBe(1);
    } finally {
      await again2.close();
    }
    // From scratch: the same three lookups find every user there, and nothing was created to confirm.
    expect([requests.get('POST /bulk-import/users') ?? 0, requests.get('POST /bulk-import/users/lookup')]).toEqual([0, 3]);
    expect(readReport(file).totals).toEqual(totals({ read: 8, alreadyImported: 5, failed: 1, invalid: 2 }));
    expect(await failedRows()).toBe(0);
  });

  it('writes a partial report when interrupted, and the continued run counts the users the first one created', async () => {
    const core = await start();
    const file = temp.file('users.ndjson', ndjson(users));
    const controller = new AbortController();
    let handled: number | undefined;
    const proxy = await startProxy(core.url, (method, path, _status, count) => {
      if (method === 'POST' && path === '/bulk-import/users' && count === 1) controller.abort();
      return 'forward';
    });
    try {
      const first = await runCommand([...migrateArgs({ ...core, url: proxy.url }, 'ndjson', file), '--batch-size', '2'], {
        signal: controller.signal,
      });
      expect(first.code).toBe(130);
      // The batches in flight when the signal came (the first, and the second if it was sent by then) are finished.
      handled = Number(
        /interrupted: (\d+) users handled so far; the report below is partial; run the same command again/.exec(first.stderr)?.[1],
      );
      expect([2, 4], first.stderr).toContain(handled);
    } finally {
      await proxy.close();
    }
    const partial = readReport(file);
    expect(partial.partial).toBe(true);
    expect(partial.totals.read).toBe(handled);
    const t = partial.totals;
    expect(t.imported + t.stillQueued).toBe(handled);
    expect(await countRows(core.t.db, 'users')).toBe(handled);

    const second = await runCommand([...migrateArgs(core, 'ndjson', file), '--batch-size', '2']);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain(`resuming: ${handled} users of the export were handled by an earlier invocation of this run`);
    const report = readReport(file);
    expect([report.partial, report.totals]).toEqual([false, totals({ read: 6, imported: 6 })]);
    expect(report.created.map((user: { user: string }) => user.user)).toEqual(users.map((user) => user.externalUserId));
    expect(await countRows(core.t.db, 'users')).toBe(6);
  });

  it('counts users whose batch was stored but never acknowledged as imported once, and removes the duplicate FAILED rows', async () => {
    const core = await start();
    const file = temp.file('users.ndjson', ndjson(users));
    const proxy = await startProxy(core.url, (method, path, _status, count) =>
      method === 'POST' && path === '/bulk-import/users' && count === 1 ? 'drop' : 'forward',
    );
    try {
      expect((await runCommand(migrateArgs({ ...core, url: proxy.url }, 'ndjson', file))).code).toBe(0);
    } finally {
      await proxy.close();
    }
    const report = readReport(file);
    expect(report.totals).toEqual(totals({ read: 6, imported: 6 }));
    expect(report.created).toHaveLength(6);
    expect(await countRows(core.t.db, 'bulk_import_users')).toBe(0);
    for (const user of users) expect(await signIn(core, user.email, 'same-pw')).toBe('OK');
  });

  it('undo removes exactly the users the run created, never those there before, with a dry run of its own', async () => {
    const core = await start();
    const before = {
      externalUserId: 'old-1',
      loginMethods: [{ recipeId: 'emailpassword', email: 'user1@example.com', passwordHash, hashingAlgorithm: 'bcrypt' }],
    };
    expect((await call(core.t.app, 'POST', '/bulk-import/import', { body: before, headers: { 'api-key': apiKey } })).statusCode).toBe(200);
    const other = {
      loginMethods: [{ recipeId: 'emailpassword', email: 'bystander@example.com', passwordHash, hashingAlgorithm: 'bcrypt' }],
    };
    expect((await call(core.t.app, 'POST', '/bulk-import/import', { body: other, headers: { 'api-key': apiKey } })).statusCode).toBe(200);
    const file = temp.file('users.ndjson', ndjson(users));
    expect((await runCommand(migrateArgs(core, 'ndjson', file))).code).toBe(0);
    expect(readReport(file).totals).toEqual(totals({ read: 6, imported: 5, alreadyImported: 1 }));
    expect(await countRows(core.t.db, 'users')).toBe(7);
    const reportPath = `${file}.migrate-report.json`;

    const dry = await runCommand(['migrate', 'undo', reportPath, '--core-url', core.url, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('would remove        5');
    expect(await countRows(core.t.db, 'users')).toBe(7);

    const elsewhere = await start();
    const refused = await runCommand(['migrate', 'undo', reportPath, '--core-url', elsewhere.url]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${reportPath} was written for core`);

    const undo = await runCommand(['migrate', 'undo', reportPath, '--core-url', core.url]);
    expect(undo.code).toBe(0);
    expect(undo.stdout).toContain('removed             5');
    const { rows } = await core.t.db.pool.query<{ email: string }>('SELECT email FROM users ORDER BY email');
    expect(rows.map((row) => row.email)).toEqual(['bystander@example.com', 'user1@example.com']);
    expect(await signIn(core, 'user1@example.com', 'same-pw')).toBe('OK');

    const again = await runCommand(['migrate', 'undo', reportPath, '--core-url', core.url]);
    expect(again.stdout).toContain('no longer in core   5');
  });

  it('reports refused contacts per user instead of importing them as written', async () => {
    const core = await start();
    const file = temp.file(
      'contacts.ndjson',
      ndjson([
        { externalUserId: 'p-1', phoneNumber: '4155550102' },
        { externalUserId: 'p-2', phoneNumber: '+1 415 555 0103' },
        { externalUserId: 'e-1', email: 'bob smith@example.com', passwordHash },
        { externalUserId: 'e-2', email: '\u212Avictim@uni.com', passwordHash },
        { externalUserId: 'e-3', email: ' Jose\u0301@Example.com ', passwordHash },
      ]),
    );
    const result = await runCommand(migrateArgs(core, 'ndjson', file));
    expect(result.code).toBe(1);
    const report = readReport(file);
    expect(report.totals).toEqual(totals({ read: 5, imported: 2, invalid: 3 }));
    expect(report.notImported.map((entry: { user: string; stage: string }) => [entry.user, entry.stage])).toEqual([
      ['p-1', 'source'],
      ['e-1', 'source'],
      ['e-2', 'source'],
    ]);
    expect(report.notImported[0].reason).toBe(
      'phoneNumber "4155550102" must be in international format with a leading + and country code, e.g. +14155552671',
    );
    const { rows } = await core.t.db.pool.query('SELECT email, phone_number FROM users ORDER BY 1, 2');
    expect(rows).toEqual([
      { email: 'jos\u00e9@example.com', phone_number: null },
      { email: null, phone_number: '+14155550103' },
    ]);
    expect(await signIn(core, 'jos\u00e9@example.com', 'same-pw')).toBe('OK');
  });
});
