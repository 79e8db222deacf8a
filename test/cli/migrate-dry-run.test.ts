import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, countRows, snapshot } from '../helper.js';
import { bcryptHash, firebaseJsonExport, firebasePassword, hashConfigBlock, makeTempDir } from './fixtures.js';
import { apiKey, migrateArgs, runCommand, startCore, type RunningCore } from './harness.js';

describe('migrate --dry-run', () => {
  const temp = makeTempDir();
  let core: RunningCore;
  const hash = bcryptHash('pw');
  beforeAll(async () => {
    core = await startCore();
    // Someone else's account with an email of the export, and a user an earlier run imported.
    for (const user of [
      {
        externalUserId: 'someone-else',
        loginMethods: [{ recipeId: 'emailpassword', email: 'taken@example.com', passwordHash: hash, hashingAlgorithm: 'bcrypt' }],
      },
      {
        externalUserId: 'old-2',
        loginMethods: [{ recipeId: 'emailpassword', email: 'earlier@example.com', passwordHash: hash, hashingAlgorithm: 'bcrypt' }],
      },
    ]) {
      expect((await call(core.t.app, 'POST', '/bulk-import/import', { body: user, headers: { 'api-key': apiKey } })).statusCode).toBe(200);
    }
  });
  afterAll(async () => {
    await core.t.close();
    temp.remove();
  });

  const lines = [
    { externalUserId: 'old-1', email: 'new@example.com', passwordHash: hash },
    { externalUserId: 'old-2', email: 'earlier@example.com', passwordHash: hash },
    { externalUserId: 'old-3', email: 'TAKEN@example.com', passwordHash: hash },
    { externalUserId: 'old-4', email: 'bad@example.com', passwordHash: '$2a$10$short', hashingAlgorithm: 'bcrypt' },
    { externalUserId: 'old-5', thirdPartyId: 'google', thirdPartyUserId: 'g-5' },
    { externalUserId: 'old-6', email: 'multi@example.com', passwordHash: hash, thirdPartyId: 'google', thirdPartyUserId: 'g-6' },
  ];

  it('says what would be imported, what conflicts and what is invalid, and writes nothing', async () => {
    const file = temp.file('users.ndjson', lines.map((line) => JSON.stringify(line)).join('\n'));
    const before = await snapshot(core.t.db);

    const result = await runCommand([...migrateArgs(core, 'ndjson', file, '--dry-run'), '--batch-size', '4']);

    expect(result.code).toBe(1);
    expect(await snapshot(core.t.db)).toEqual(before);
    expect(fs.readdirSync(temp.dir).sort()).toEqual(['users.ndjson']);
    expect(result.stdout).toBe(
      [
        `Dry run of ${file} (ndjson) into ${core.url}`,
        '  users read                                 6',
        '  would be imported                          2',
        '  already in the core before this run        1',
        '  would be completed                         0',
        '  would fail                                 1',
        '  invalid                                    2',
        '  skipped                                    0',
        '  imported with some login methods left out  0',
        '  imported without some of their data        0',
        '',
        'Would not be imported:',
        '  old-3 (record 3, conflicts with another user in the core): emailpassword user taken@example.com already exists in the core as another user (someone-else)',
        '  old-4 (record 4, refused by the core): Password hash is in invalid BCrypt format: salt and hash must be exactly 53 characters, got 5',
        '  old-5 (record 5, invalid in the export): a third-party user needs an email',
        '',
      ].join('\n'),
    );
  });

  it('counts the users whose hash is in a weak format and points at rehash on sign-in', async () => {
    const weak = [
      { externalUserId: 'w-1', email: 'wordpress@example.com', passwordHash: '$P$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0' },
      { externalUserId: 'w-2', email: 'ldap@example.com', passwordHash: '{SSHA}0c0blFTXXNuAMHECS4uxrj3ZieMoWImr' },
      { externalUserId: 'w-3', email: 'strong@example.com', passwordHash: hash },
      // An ASP.NET Identity v2 blob (PBKDF2, 1,000 iterations) as the column holds it, named by hashingAlgorithm.
      {
        externalUserId: 'w-4',
        email: 'aspnet@example.com',
        passwordHash: 'AAABAgMEBQYHCAkKCwwNDg+ukCEMDf0yyQ29NYubggHIVY0sdEUfdyeM+E1LtH1uJg==',
        hashingAlgorithm: 'aspnet_identity',
      },
    ];
    const file = temp.file('weak.ndjson', weak.map((line) => JSON.stringify(line)).join('\n'));
    const reportPath = `${temp.dir}/weak-report.json`;

    const result = await runCommand(migrateArgs(core, 'ndjson', file, '--dry-run', '--report', reportPath));

    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      [
        '3 users have a password hash in a weak format (plain or salted digest, HMAC, md5-crypt, phpass, PBKDF2 with few iterations):',
        '  turn on password_rehash_on_signin in the core so each moves to the configured algorithm at its next sign-in.',
      ].join('\n'),
    );
    expect(JSON.parse(fs.readFileSync(reportPath, 'utf8'))).toMatchObject({ totals: { read: 4, wouldImport: 4 }, weakHashes: 3 });
  });

  it('writes the report only where --report says, and checks canary passwords locally', async () => {
    const alice = await firebasePassword('alice-pw');
    const file = temp.file('users.json', firebaseJsonExport([{ localId: 'a', email: 'alice@example.com', ...alice }]));
    const hashConfig = temp.file('hash.txt', hashConfigBlock);
    const reportPath = `${temp.dir}/dry-report.json`;
    const before = await snapshot(core.t.db);

    const result = await runCommand(
      migrateArgs(
        core,
        'firebase',
        file,
        '--hash-config',
        hashConfig,
        '--dry-run',
        '--report',
        reportPath,
        '--check-password',
        'alice@example.com:alice-pw',
      ),
    );

    expect(result.code).toBe(0);
    expect(await snapshot(core.t.db)).toEqual(before);
    expect(fs.existsSync(`${file}.migrate-state.json`)).toBe(false);
    const report = JSON.parse(fs.readFileSync(reportPath, 'utf8'));
    expect(report).toMatchObject({
      dryRun: true,
      totals: {
        read: 1,
        wouldImport: 1,
        alreadyImported: 0,
        wouldComplete: 0,
        wouldFail: 0,
        invalid: 0,
        skipped: 0,
        withCollisions: 0,
        withDataNotCarried: 0,
      },
      notImported: [],
      canary: [{ email: 'alice@example.com', result: 'password verifies against the export (checked locally: dry run)' }],
    });
    expect(await countRows(core.t.db, 'bulk_import_users')).toBe(0);
  });
});
