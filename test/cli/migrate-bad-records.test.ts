import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bcryptHash, makeTempDir } from './fixtures.js';
import { call } from '../helper.js';
import { apiKey, migrateArgs, runCommand, signIn, startCore, startProxy, type RunningCore } from './harness.js';

const passwordHash = bcryptHash('same-pw');
const good = (i: number) => JSON.stringify({ externalUserId: `old-${i}`, email: `user${i}@example.com`, passwordHash });
const readReport = (path: string) => JSON.parse(fs.readFileSync(path, 'utf8'));

async function emailsHeld(core: RunningCore): Promise<string[]> {
  const { rows } = await core.t.db.pool.query<{ email: string }>('SELECT email FROM users ORDER BY email');
  return rows.map((row) => row.email);
}

// Records 2–7 are each bad in one way; the others are good users.
const lines = [
  good(1),
  '{"externalUserId": "old-2", "email": "user2@example.com", ',
  '["not", "an", "object"]',
  JSON.stringify({ externalUserId: 'old-4\u0000', email: 'user4@example.com', passwordHash }),
  JSON.stringify({ externalUserId: 'old-5\ud800', email: 'user5@example.com', passwordHash }),
  JSON.stringify({ externalUserId: 'old-6', email: 'user6@example.com', passwordHash, padding: 'x'.repeat(5 * 1024 * 1024) }),
  JSON.stringify({ externalUserId: 'old-7', email: 'user7@example.com', passwordHash: 'not-a-hash' }),
  good(8),
  good(9),
];
const expectedNotImported = [
  {
    user: 'record 2',
    record: 2,
    stage: 'source',
    reason: expect.stringMatching(/^is not JSON \(/),
  },
  { user: 'record 3', record: 3, stage: 'source', reason: 'is not a JSON object' },
  {
    user: 'old-4\u0000',
    record: 4,
    stage: 'source',
    reason: 'externalUserId holds a NUL character (\\u0000), which the database cannot store.',
  },
  {
    user: 'old-5\ud800',
    record: 5,
    stage: 'source',
    reason: 'externalUserId holds a lone surrogate (half of a UTF-16 pair), which the database cannot store.',
  },
  { user: 'record 6', record: 6, stage: 'source', reason: expect.stringMatching(/^is longer than 4 MiB \(\d+ characters\): not read$/) },
  { user: 'old-7', record: 7, stage: 'source', reason: 'hashingAlgorithm is missing and the hash is in no format the core detects' },
];

describe('migrate: one bad record never stops the others', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let core: RunningCore;
  beforeEach(async () => {
    temp = makeTempDir();
    core = await startCore();
  });
  afterEach(async () => {
    await core.t.close();
    temp.remove();
  });

  it('NDJSON: each bad record is named with its number and reason and skipped, the rest imported, the run exits 1; the dry run says the same', async () => {
    const file = temp.file('users.ndjson', `${lines.join('\n')}\n`);

    const dry = await runCommand([...migrateArgs(core, 'ndjson', file), '--dry-run', '--report', `${file}.dry.json`]);
    expect(dry.code, dry.stderr).toBe(1);
    const dryReport = readReport(`${file}.dry.json`);
    expect(dryReport.totals).toEqual({
      read: 9,
      wouldImport: 3,
      alreadyImported: 0,
      wouldComplete: 0,
      wouldFail: 0,
      invalid: 6,
      skipped: 0,
      withCollisions: 0,
      withDataNotCarried: 0,
    });
    expect(dryReport.notImported).toEqual(expectedNotImported);
    expect(await emailsHeld(core)).toEqual([]);

    const run = await runCommand([...migrateArgs(core, 'ndjson', file), '--batch-size', '3']);
    expect(run.code, run.stderr).toBe(1);
    const report = readReport(`${file}.migrate-report.json`);
    expect(report.totals).toEqual({
      read: 9,
      imported: 3,
      alreadyImported: 0,
      failed: 0,
      invalid: 6,
      skipped: 0,
      completed: 0,
      stillQueued: 0,
      withCollisions: 0,
      withDataNotCarried: 0,
    });
    expect(report.notImported).toEqual(expectedNotImported);
    expect(run.stdout).toContain('record 3 (record 3, invalid in the export): is not a JSON object');
    expect(await emailsHeld(core)).toEqual(['user1@example.com', 'user8@example.com', 'user9@example.com']);
    expect(await signIn(core, 'user9@example.com', 'same-pw')).toBe('OK');
  });

  it('--max-invalid stops the run and the dry run early, with a partial report', async () => {
    const file = temp.file('users.ndjson', `${lines.join('\n')}\n`);
    const dry = await runCommand([...migrateArgs(core, 'ndjson', file), '--dry-run', '--max-invalid', '1', '--report', `${file}.dry.json`]);
    expect(dry.code).toBe(2);
    expect(dry.stderr).toContain('stopped: 2 users are invalid, more than --max-invalid 1');
    expect(readReport(`${file}.dry.json`)).toMatchObject({ partial: true, totals: { read: 3, invalid: 2 } });

    const run = await runCommand([...migrateArgs(core, 'ndjson', file), '--batch-size', '3', '--max-invalid', '1']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('more than --max-invalid 1');
    const report = readReport(`${file}.migrate-report.json`);
    expect(report).toMatchObject({ partial: true, totals: { read: 3, imported: 1, invalid: 2 } });
    expect(await emailsHeld(core)).toEqual(['user1@example.com']);
  });

  it('a user the core refuses with E027 is named with the value and its holder, and counted the same way by the dry run and the run', async () => {
    // A primary user of the core reserves shared@example.com; the export's user would be another primary user
    // holding it through its GitHub login method.
    const primary = {
      externalUserId: 'core-1',
      loginMethods: [
        { recipeId: 'emailpassword', email: 'shared@example.com', passwordHash, hashingAlgorithm: 'bcrypt', isPrimary: true },
        { recipeId: 'thirdparty', thirdPartyId: 'google', thirdPartyUserId: 'g-1', email: 'shared@example.com' },
      ],
    };
    expect((await call(core.t.app, 'POST', '/bulk-import/import', { body: primary, headers: { 'api-key': apiKey } })).statusCode).toBe(200);
    const row = {
      externalUserId: 'old-9',
      thirdPartyId: 'github',
      thirdPartyUserId: 'gh-1',
      email: 'shared@example.com',
      phoneNumber: '+14155550100',
    };
    const file = temp.file('users.ndjson', `${JSON.stringify(row)}\n${good(1)}\n`);
    const refused = [
      {
        user: 'old-9',
        record: 1,
        stage: 'import',
        reason: 'E027: there is a conflicting account info: email shared@example.com already belongs to user core-1',
      },
    ];

    const dry = await runCommand([...migrateArgs(core, 'ndjson', file), '--dry-run', '--report', `${file}.dry.json`]);
    expect(dry.code, dry.stderr).toBe(1);
    const dryReport = readReport(`${file}.dry.json`);
    expect(dryReport.notImported).toEqual(refused);
    expect(dryReport.totals).toMatchObject({ read: 2, wouldImport: 1, wouldFail: 1, invalid: 0 });

    const run = await runCommand(migrateArgs(core, 'ndjson', file));
    expect(run.code, run.stderr).toBe(1);
    const report = readReport(`${file}.migrate-report.json`);
    expect(report.notImported).toEqual(refused);
    expect(report.totals).toMatchObject({ read: 2, imported: 1, failed: 1, invalid: 0 });
  });

  it('CSV: a quote never closed refuses its row only; the rows after it are read again from the next line', async () => {
    const rows = [
      'email,passwordHash,externalUserId',
      `user1@example.com,${passwordHash},old-1`,
      `user2@example.com,"${passwordHash},old-2`,
      `user3@example.com,${passwordHash},old-3`,
      `user4@example.com,${passwordHash},old-4`,
    ];
    const file = temp.file('users.csv', `${rows.join('\n')}\n`);
    const run = await runCommand(migrateArgs(core, 'csv', file));
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).not.toContain('    at ');
    const report = readReport(`${file}.migrate-report.json`);
    expect(report.totals).toMatchObject({ read: 4, imported: 3, invalid: 1 });
    expect(report.notImported).toEqual([
      {
        user: 'record 2',
        record: 2,
        stage: 'source',
        reason: 'a quoted field is never closed',
      },
    ]);
    expect(await emailsHeld(core)).toEqual(['user1@example.com', 'user3@example.com', 'user4@example.com']);
  });
});

describe('migrate: a batch larger than the core takes in one request', () => {
  it('goes again in halves, and a user too large alone is refused by name while the others are imported', async () => {
    const temp = makeTempDir();
    const core = await startCore({ bulk_import_body_limit_bytes: 4096 });
    try {
      const big = JSON.stringify({
        externalUserId: 'old-big',
        email: 'big@example.com',
        passwordHash,
        userMetadata: { note: 'x'.repeat(6000) },
      });
      const file = temp.file('users.ndjson', `${[good(1), good(2), big, good(3), good(4), good(5)].join('\n')}\n`);
      const run = await runCommand([...migrateArgs(core, 'ndjson', file), '--batch-size', '10']);
      expect(run.code, run.stderr).toBe(1);
      const report = readReport(`${file}.migrate-report.json`);
      expect(report.totals).toMatchObject({ read: 6, imported: 5, failed: 0, invalid: 1 });
      expect(report.notImported).toEqual([
        {
          user: 'old-big',
          record: 3,
          stage: 'validation',
          reason: 'larger than the core takes in one request (its bulk_import_body_limit_bytes): not sent',
        },
      ]);
      expect(await emailsHeld(core)).toEqual([
        'user1@example.com',
        'user2@example.com',
        'user3@example.com',
        'user4@example.com',
        'user5@example.com',
      ]);
    } finally {
      await core.t.close();
      temp.remove();
    }
  });
});

describe('migrate: a core that fails (500) on one user', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let core: RunningCore;
  beforeEach(async () => {
    temp = makeTempDir();
    core = await startCore();
  });
  afterEach(async () => {
    await core.t.close();
    temp.remove();
  });
  const internalError = { status: 500, body: JSON.stringify({ message: 'Internal Server Error' }) };

  it('has that user found by halving its batch and refused by name; the others are imported', async () => {
    const poison = JSON.stringify({ externalUserId: 'old-poison', email: 'poison@example.com', passwordHash });
    const file = temp.file('users.ndjson', `${[good(1), good(2), good(3), poison, good(5), good(6)].join('\n')}\n`);
    const proxy = await startProxy(
      core.url,
      () => 'forward',
      (method, path, _count, body) =>
        method === 'POST' && path === '/bulk-import/users' && body.includes('poison@example.com') ? internalError : 'forward',
    );
    try {
      const run = await runCommand([...migrateArgs({ ...core, url: proxy.url }, 'ndjson', file), '--batch-size', '10', '--retries', '0']);
      expect(run.code, run.stderr).toBe(1);
    } finally {
      await proxy.close();
    }
    const report = readReport(`${file}.migrate-report.json`);
    expect(report.totals).toMatchObject({ read: 6, imported: 5, invalid: 1, failed: 0 });
    expect(report.notImported).toEqual([
      {
        user: 'old-poison',
        record: 4,
        stage: 'validation',
        reason: 'the core failed on this user (500: {"message":"Internal Server Error"})',
      },
    ]);
    expect(await emailsHeld(core)).toEqual([
      'user1@example.com',
      'user2@example.com',
      'user3@example.com',
      'user5@example.com',
      'user6@example.com',
    ]);
  });

  it('stops the run when it fails on every part of a batch', async () => {
    const file = temp.file('users.ndjson', `${[good(1), good(2), good(3)].join('\n')}\n`);
    const proxy = await startProxy(
      core.url,
      () => 'forward',
      (method, path) => (method === 'POST' && path === '/bulk-import/users' ? internalError : 'forward'),
    );
    try {
      const run = await runCommand([...migrateArgs({ ...core, url: proxy.url }, 'ndjson', file), '--retries', '0']);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        'the core failed on a batch and on both its halves (500: {"message":"Internal Server Error"}): not one user\'s doing',
      );
    } finally {
      await proxy.close();
    }
    expect(await emailsHeld(core)).toEqual([]);
  });
});
