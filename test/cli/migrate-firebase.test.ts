import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, countRows } from '../helper.js';
import {
  firebaseCsvLine,
  firebaseJsonExport,
  firebasePassword,
  hashConfigBlock,
  makeTempDir,
  urlSafe,
  type ExportedPassword,
} from './fixtures.js';
import { apiKey, migrateArgs, runCommand, signIn, startCore, userById, type RunningCore } from './harness.js';

const created = 1_600_000_000_000;

describe('migrate firebase', () => {
  const temp = makeTempDir();
  let core: RunningCore;
  let alice: ExportedPassword;
  let bob: ExportedPassword;
  let carol: ExportedPassword;
  let hashConfig: string;
  beforeAll(async () => {
    core = await startCore();
    [alice, bob, carol] = await Promise.all([
      firebasePassword('alice-pw'),
      firebasePassword('bob-pw ünicode'),
      firebasePassword('carol-pw'),
    ]);
    hashConfig = temp.file('hash-config.txt', hashConfigBlock);
  });
  afterAll(async () => {
    await core.t.close();
    temp.remove();
  });

  it('imports a JSON export after a canary sign-in, reports what it could not import, and users can sign in', async () => {
    const file = temp.file(
      'users.json',
      firebaseJsonExport([
        {
          localId: 'fb-alice',
          email: 'alice@example.com',
          emailVerified: true,
          passwordHash: alice.passwordHash,
          salt: alice.salt,
          createdAt: String(created),
        },
        {
          localId: 'fb-bob',
          email: 'Bob@Example.com',
          passwordHash: urlSafe(bob.passwordHash),
          salt: urlSafe(bob.salt),
          createdAt: String(created + 1),
        },
        {
          localId: 'fb-carol',
          email: 'carol@example.com',
          passwordHash: carol.passwordHash,
          salt: carol.salt,
          createdAt: String(created + 2),
          providerUserInfo: [{ providerId: 'google.com', rawId: 'g-carol', email: 'carol@gmail.com' }],
        },
        {
          localId: 'fb-google',
          email: 'g@example.com',
          createdAt: String(created + 3),
          providerUserInfo: [{ providerId: 'google.com', rawId: 'g-1', email: 'g@gmail.com' }],
        },
        { localId: 'fb-phone', phoneNumber: '+14155552671', createdAt: String(created + 4) },
        { localId: 'fb-broken', email: 'broken@example.com', passwordHash: 'not*base64', salt: alice.salt },
        { localId: 'fb-off', email: 'off@example.com', disabled: true },
      ]),
    );

    const result = await runCommand(
      migrateArgs(core, 'firebase', file, '--hash-config', hashConfig, '--check-password', 'alice@example.com:alice-pw'),
    );

    expect(result.stderr).toContain('canary alice@example.com: imported and signed in');
    expect(result.code).toBe(1);
    const report = JSON.parse(fs.readFileSync(`${file}.migrate-report.json`, 'utf8'));
    const coreId = (await call(core.t.app, 'GET', '/bulk-import/core-identity', { headers: { 'api-key': apiKey } })).json;
    expect(report.progress).toEqual({
      runStartedAt: expect.any(String),
      stateFile: `${file}.migrate-state.json`,
      sentLog: `${file}.migrate-sent.tsv`,
      intentLog: `${file}.migrate-intent.tsv`,
      createdLog: `${file}.migrate-created.ndjson`,
    });
    expect({ ...report, startedAt: 'x', finishedAt: 'x', progress: 'x' }).toEqual({
      source: 'firebase',
      file,
      coreUrl: core.url,
      coreId: (coreId as { coreId: string }).coreId,
      dryRun: false,
      partial: false,
      progress: 'x',
      startedAt: 'x',
      finishedAt: 'x',
      totals: {
        read: 7,
        imported: 5,
        alreadyImported: 0,
        failed: 0,
        invalid: 1,
        skipped: 1,
        completed: 0,
        stillQueued: 0,
        withCollisions: 0,
        withDataNotCarried: 0,
      },
      notImported: [
        { user: 'fb-broken', record: 6, stage: 'source', reason: 'passwordHash is not valid Base64' },
        {
          user: 'fb-off',
          record: 7,
          stage: 'skipped',
          reason: 'disabled in the source (pass --include-disabled to import disabled users)',
        },
      ],
      collisions: [],
      completed: [],
      carried: [],
      notCarried: [],
      canary: [{ email: 'alice@example.com', result: 'imported and signed in' }],
      created: ['fb-alice', 'fb-bob', 'fb-carol', 'fb-google', 'fb-phone'].map((user, i) => ({
        user,
        record: i + 1,
        userId: expect.any(String),
      })),
    });
    const internalIds = (await core.t.db.pool.query<{ group_id: string }>('SELECT group_id FROM user_groups')).rows.map(
      (row) => row.group_id,
    );
    expect(report.created.map((entry: { userId: string }) => entry.userId).sort()).toEqual(internalIds.sort());
    expect(result.stdout).toContain('fb-broken (record 6, invalid in the export): passwordHash is not valid Base64');
    // Carol's password and Google login methods are one user.
    expect((await userById(core, 'fb-carol')).loginMethods.map((method: { recipeId: string }) => method.recipeId).sort()).toEqual([
      'emailpassword',
      'thirdparty',
    ]);

    expect(await countRows(core.t.db, 'users')).toBe(6);
    expect(await countRows(core.t.db, 'bulk_import_users')).toBe(0);
    expect(await signIn(core, 'alice@example.com', 'alice-pw')).toBe('OK');
    expect(await signIn(core, 'bob@example.com', 'bob-pw ünicode')).toBe('OK');
    expect(await signIn(core, 'carol@example.com', 'carol-pw')).toBe('OK');
    expect(await signIn(core, 'carol@example.com', 'alice-pw')).toBe('WRONG_CREDENTIALS_ERROR');
    expect(await userById(core, 'fb-google')).toMatchObject({
      id: 'fb-google',
      timeJoined: created + 3,
      thirdParty: [{ id: 'google', userId: 'g-1' }],
      emails: ['g@gmail.com'],
    });
    expect(await userById(core, 'fb-phone')).toMatchObject({ id: 'fb-phone', phoneNumbers: ['+14155552671'] });
    expect((await userById(core, 'fb-alice')).loginMethods[0]).toMatchObject({ verified: true, timeJoined: created });

    const state = JSON.parse(fs.readFileSync(`${file}.migrate-state.json`, 'utf8'));
    expect(state).toMatchObject({
      recordsDone: 7,
      usersQueued: 4,
      canaryCreated: [{ email: 'alice@example.com', userId: expect.any(String) }],
      rejected: [],
    });
    expect(fs.readFileSync(`${file}.migrate-state.json`, 'utf8')).not.toContain(alice.passwordHash);
    expect(fs.readFileSync(`${file}.migrate-report.json`, 'utf8')).not.toContain(alice.passwordHash);
    expect(result.stdout + result.stderr).not.toContain(alice.passwordHash);
  });

  it('imports the CSV export, and running the same command again changes nothing', async () => {
    const core2 = await startCore();
    try {
      const file = temp.file(
        'users.csv',
        [
          firebaseCsvLine({
            localId: 'csv-alice',
            email: 'alice@example.com',
            emailVerified: true,
            ...alice,
            displayName: 'Smith, Alice',
            createdAt: created,
          }),
          firebaseCsvLine({
            localId: 'csv-bob',
            email: 'bob@example.com',
            passwordHash: urlSafe(bob.passwordHash),
            salt: urlSafe(bob.salt),
            createdAt: created,
          }),
          firebaseCsvLine({
            localId: 'csv-gh',
            email: 'gh@example.com',
            github: { rawId: '42', email: 'gh@github.example' },
            createdAt: created,
          }),
        ].join('\n'),
      );
      const args = migrateArgs(
        core2,
        'firebase',
        file,
        '--hash-config',
        hashConfig,
        '--report',
        temp.file('csv-report.json', ''),
        '--check-password',
        'bob@example.com:bob-pw ünicode',
      );

      const first = await runCommand(args);
      const second = await runCommand(args);

      expect([first.code, second.code]).toEqual([0, 0]);
      for (const run of [first, second]) {
        expect(run.stdout).toMatch(/\n {2}imported +3\n/);
        expect(run.stdout).not.toContain('Not imported');
      }
      expect(first.stderr).toContain('canary bob@example.com: imported and signed in');
      expect(second.stderr).toContain('resuming: 3 users of the export were handled by an earlier invocation of this run');
      expect(second.stderr).toContain('canary bob@example.com: was already in the core; signed in');
      expect(await countRows(core2.t.db, 'users')).toBe(3);
      expect(await countRows(core2.t.db, 'bulk_import_users')).toBe(0);
      expect(await signIn(core2, 'alice@example.com', 'alice-pw')).toBe('OK');
      expect(await signIn(core2, 'bob@example.com', 'bob-pw ünicode')).toBe('OK');
      expect(await userById(core2, 'csv-gh')).toMatchObject({
        thirdParty: [{ id: 'github', userId: '42' }],
        emails: ['gh@github.example'],
      });
    } finally {
      await core2.t.close();
    }
  });

  describe('canary', () => {
    const exportWith = (name: string) =>
      temp.file(
        name,
        firebaseJsonExport([
          { localId: 'c-alice', email: 'alice@example.com', passwordHash: alice.passwordHash, salt: alice.salt },
          { localId: 'c-bob', email: 'bob@example.com', passwordHash: bob.passwordHash, salt: bob.salt },
        ]),
      );

    it('stops before the canary and the bulk run when the core has another signer key (the hash self-check)', async () => {
      const otherKey = await startCore({ idp_password_hashing_signer_key: Buffer.alloc(64, 7).toString('base64') });
      try {
        const result = await runCommand(
          migrateArgs(
            otherKey,
            'firebase',
            exportWith('key.json'),
            '--hash-config',
            hashConfig,
            '--check-password',
            'alice@example.com:alice-pw',
          ),
        );

        expect(result.code).toBe(2);
        expect(result.stderr).toContain(
          "hash self-check failed: the core does not verify a password hashed here with --hash-config, so the core's idp_password_hashing_signer_key is not the base64_signer_key of --hash-config.",
        );
        expect(result.stderr).not.toContain('canary alice@example.com');
        expect(await countRows(otherKey.t.db, 'users')).toBe(0);
        expect(await countRows(otherKey.t.db, 'bulk_import_users')).toBe(0);
      } finally {
        await otherKey.t.close();
      }
    });

    it('names the wrong value when --hash-config has another salt separator than the export', async () => {
      const fresh = await startCore();
      try {
        const wrong = temp.file(
          'wrong-separator.txt',
          hashConfigBlock.replace('base64_salt_separator: Bw==', 'base64_salt_separator: AA=='),
        );
        const result = await runCommand(
          migrateArgs(
            fresh,
            'firebase',
            exportWith('sep.json'),
            '--hash-config',
            wrong,
            '--check-password',
            'bob@example.com:bob-pw ünicode',
          ),
        );

        expect(result.code).toBe(2);
        expect(result.stderr).toContain(
          'canary bob@example.com cannot sign in after the import (WRONG_CREDENTIALS_ERROR): the password verifies with base64_salt_separator Bw==: correct --hash-config',
        );
        expect(await countRows(fresh.t.db, 'users')).toBe(0);
        expect(await countRows(fresh.t.db, 'bulk_import_users')).toBe(0);

        const dry = await runCommand(
          migrateArgs(
            fresh,
            'firebase',
            exportWith('sep-dry.json'),
            '--hash-config',
            wrong,
            '--dry-run',
            '--check-password',
            'bob@example.com:bob-pw ünicode',
          ),
        );
        expect(dry.code).toBe(2);
        expect(dry.stderr).toContain('canary bob@example.com: the password verifies with base64_salt_separator Bw==');
      } finally {
        await fresh.t.close();
      }
    });

    it('names a mistyped canary password first when no variant of the parameters verifies and the self-check passed', async () => {
      const fresh = await startCore();
      try {
        const result = await runCommand(
          migrateArgs(
            fresh,
            'firebase',
            exportWith('pw.json'),
            '--hash-config',
            hashConfig,
            '--check-password',
            'alice@example.com:not-her-password',
          ),
        );

        expect([result.code, result.stderr.trim().split('\n').slice(-6)]).toEqual([
          2,
          [
            'identity-core migrate: canary alice@example.com cannot sign in after the import (WRONG_CREDENTIALS_ERROR): the password given does not verify against the exported hash of alice@example.com; the most likely cause is a mistyped canary password',
            '  (put it in single quotes, and check its case and keyboard layout). The self-check showed the core holds the signer key of --hash-config.',
            '  If the password is right: the hash_config block may belong to another project than the export (copy it again from the',
            '  console of the exported project), or a passwordHash or salt was altered after the export (+/ and -_ must not be mixed or swapped).',
            'Nothing else was imported.',
            'The 1 canary user(s) imported by this run were removed again.',
          ],
        ]);
        expect(result.stderr).not.toContain('do not match');
        expect(await countRows(fresh.t.db, 'users')).toBe(0);
      } finally {
        await fresh.t.close();
      }
    });

    it('refuses a canary that is not a password user of the export', async () => {
      const result = await runCommand(
        migrateArgs(core, 'firebase', exportWith('missing.json'), '--hash-config', hashConfig, '--check-password', 'nobody@example.com:x'),
      );
      expect([result.code, result.stderr.trim().split('\n').at(-1)]).toEqual([
        2,
        'identity-core migrate: canary nobody@example.com: no password user with this email in the export',
      ]);
    });
  });
});
