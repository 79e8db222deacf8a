import fs from 'node:fs';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSource } from '../../src/cli/readers/index.js';
import { parseHashConfig } from '../../src/cli/readers/hash-config.js';
import { countRows, snapshot } from '../helper.js';
import {
  bcryptHash,
  collect,
  firebaseCsvLine,
  firebaseJsonExport,
  firebasePassword,
  hashConfigBlock,
  makeTempDir,
  type CsvAccount,
  type ExportedPassword,
} from './fixtures.js';
import { migrateArgs, runCommand, signIn, startCore, userById, type RunningCore } from './harness.js';

const created = 1_600_000_000_000;
const ndjson = (lines: object[]) => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
const PROVIDERS: [string, string][] = [
  ['google.com', 'google'],
  ['facebook.com', 'facebook'],
  ['twitter.com', 'twitter'],
  ['github.com', 'github'],
  ['apple.com', 'apple'],
  ['microsoft.com', 'microsoft'],
  ['gc.apple.com', 'gamecenter'],
  ['playgames.google.com', 'playgames'],
  ['linkedin.com', 'linkedin'],
  ['yahoo.com', 'yahoo'],
];

/** The same accounts as auth:export writes them in JSON and in CSV. */
function exportBoth(accounts: CsvAccount[]): { json: string; csv: string } {
  const json = firebaseJsonExport(
    accounts.map((account) => ({
      localId: account.localId,
      ...(account.email !== undefined && { email: account.email }),
      emailVerified: account.emailVerified ?? false,
      ...(account.passwordHash !== undefined && { passwordHash: account.passwordHash, salt: account.salt }),
      ...(account.displayName !== undefined && { displayName: account.displayName }),
      ...(account.photoUrl !== undefined && { photoUrl: account.photoUrl }),
      ...(account.createdAt !== undefined && { createdAt: String(account.createdAt) }),
      ...(account.phoneNumber !== undefined && { phoneNumber: account.phoneNumber }),
      disabled: account.disabled ?? false,
      ...(account.customAttributes !== undefined && { customAttributes: account.customAttributes }),
      ...(account.providerUserInfo !== undefined && { providerUserInfo: account.providerUserInfo }),
    })),
  );
  return { json, csv: `${accounts.map(firebaseCsvLine).join('\n')}\n` };
}

describe('migrate: exports in their real formats', () => {
  const temp = makeTempDir();
  let cores: RunningCore[];
  let ann: ExportedPassword;
  let hashConfig: string;
  let accounts: CsvAccount[];
  beforeAll(async () => {
    cores = await Promise.all([startCore(), startCore(), startCore()]);
    ann = await firebasePassword('ann-pw');
    hashConfig = temp.file('hash-config.txt', hashConfigBlock);
    accounts = [
      {
        localId: 'fb-ann',
        email: 'ann@example.com',
        emailVerified: true,
        ...ann,
        displayName: 'Ann, "the" Admin',
        photoUrl: 'https://example.com/ann.png',
        createdAt: created,
        customAttributes: '{"role":"admin","tier":2}',
      },
      ...PROVIDERS.map(([providerId], i) => ({
        localId: `fb-${providerId}`,
        email: `only-${i}@example.com`,
        createdAt: created + i + 1,
        providerUserInfo: [
          { providerId, rawId: `raw-${i}`, email: `${i}@${providerId}`, displayName: `Name ${i}`, photoUrl: `https://p/${i}` },
        ],
      })),
      {
        localId: 'fb-apple-google',
        email: 'ag@example.com',
        createdAt: created + 20,
        providerUserInfo: [
          { providerId: 'apple.com', rawId: 'a-1', email: 'ag@privaterelay.example' },
          { providerId: 'google.com', rawId: 'g-1', email: 'ag@gmail.com' },
        ],
      },
      { localId: 'fb-anon', createdAt: created + 21 },
    ];
  });
  afterAll(async () => {
    await Promise.all(cores.map((core) => core.t.close()));
    temp.remove();
  });

  it('reads the JSON and the 52-column CSV of one export as the same users, all ten providers included', async () => {
    const { json, csv } = exportBoth(accounts);
    const options = { hashConfig: parseHashConfig(hashConfigBlock), includeDisabled: false, providerOverrides: new Map() };
    const fromJson = await collect(openSource('firebase', temp.file('same.json', json), options).records);
    const fromCsv = await collect(openSource('firebase', temp.file('same.csv', csv), options).records);
    expect(fromCsv).toEqual(fromJson);
    expect(fromJson.slice(1, 11).map((record) => record.user?.loginMethods[0])).toEqual(
      PROVIDERS.map(([providerId, thirdPartyId], i) => ({
        recipeId: 'thirdparty',
        email: `${i}@${providerId}`,
        thirdPartyId,
        thirdPartyUserId: `raw-${i}`,
        isVerified: false,
        timeJoinedInMSSinceEpoch: created + i + 1,
      })),
    );
  });

  it('imports JSON and CSV of one export with identical results, carrying names, pictures and claims into metadata', async () => {
    const { json, csv } = exportBoth(accounts);
    const jsonFile = temp.file('users.json', json);
    const csvFile = temp.file('users.csv', csv);
    const fromJson = await runCommand(migrateArgs(cores[0], 'firebase', jsonFile, '--hash-config', hashConfig));
    const fromCsv = await runCommand(migrateArgs(cores[1], 'firebase', csvFile, '--hash-config', hashConfig));
    expect([fromJson.code, fromCsv.code]).toEqual([0, 0]);

    const comparable = (file: string) => {
      const report = JSON.parse(fs.readFileSync(`${file}.migrate-report.json`, 'utf8'));
      return {
        totals: report.totals,
        notImported: report.notImported,
        collisions: report.collisions,
        notCarried: report.notCarried,
        created: report.created.map((entry: { user: string }) => entry.user),
      };
    };
    expect(comparable(csvFile)).toEqual(comparable(jsonFile));
    expect(comparable(csvFile)).toEqual({
      totals: {
        read: 13,
        imported: 12,
        alreadyImported: 0,
        failed: 0,
        invalid: 0,
        skipped: 1,
        completed: 0,
        stillQueued: 0,
        withCollisions: 0,
        withDataNotCarried: 0,
      },
      notImported: [
        {
          user: 'fb-anon',
          record: 13,
          stage: 'skipped',
          reason: 'anonymous user: no email, phone number, password or identity provider to sign in with',
        },
      ],
      collisions: [],
      notCarried: [],
      created: accounts.slice(0, 12).map((account) => account.localId),
    });

    const rows = async (core: RunningCore) =>
      (
        await core.t.db.pool.query(
          `SELECT m.external_user_id, u.recipe_id, u.email, u.third_party_id, u.third_party_user_id, u.time_joined, md.metadata
         FROM users u JOIN user_id_mappings m USING (user_id) LEFT JOIN user_metadata md ON md.user_id = m.external_user_id ORDER BY m.external_user_id`,
        )
      ).rows;
    expect(await rows(cores[1])).toEqual(await rows(cores[0]));
    for (const core of cores.slice(0, 2)) {
      expect(await signIn(core, 'ann@example.com', 'ann-pw')).toBe('OK');
      expect(await userById(core, 'fb-apple.com')).toMatchObject({ thirdParty: [{ id: 'apple', userId: 'raw-4' }] });
      expect(await userById(core, 'fb-microsoft.com')).toMatchObject({ thirdParty: [{ id: 'microsoft', userId: 'raw-5' }] });
      expect(await userById(core, 'fb-apple-google')).toMatchObject({
        thirdParty: [
          { id: 'google', userId: 'g-1' },
          { id: 'apple', userId: 'a-1' },
        ],
      });
    }
    const ann = (await rows(cores[1])).find((row) => row.external_user_id === 'fb-ann');
    expect(ann.metadata).toEqual({
      displayName: 'Ann, "the" Admin',
      photoUrl: 'https://example.com/ann.png',
      appMetadata: { role: 'admin', tier: 2 },
    });
    const linkedin = (await rows(cores[1])).find((row) => row.external_user_id === 'fb-linkedin.com');
    expect(linkedin.metadata).toEqual({
      providers: [{ providerId: 'linkedin.com', rawId: 'raw-8', email: '8@linkedin.com', displayName: 'Name 8', photoUrl: 'https://p/8' }],
    });
  });

  it('carries a phone second factor as a linked phone login method the user must also prove', async () => {
    const file = temp.file(
      'mfa.json',
      firebaseJsonExport([
        { localId: 'fb-mfa', email: 'mfa@example.com', ...ann, mfaInfo: [{ mfaEnrollmentId: 'e1', phoneInfo: '+14155552671' }] },
      ]),
    );
    const result = await runCommand(migrateArgs(cores[2], 'firebase', file, '--hash-config', hashConfig));
    expect(result.code).toBe(0);
    const report = JSON.parse(fs.readFileSync(`${file}.migrate-report.json`, 'utf8'));
    expect([report.totals.withDataNotCarried, report.notCarried, report.carried]).toEqual([
      0,
      [],
      [{ user: 'fb-mfa', record: 1, items: ['second factor otp-phone: +14155552671', 'required second factors: otp-phone'] }],
    ]);
    expect(result.stdout).toContain('Carried beyond login methods: 1 user (phone second factors 1); each is listed in the report.');
    expect(await signIn(cores[2], 'mfa@example.com', 'ann-pw')).toBe('OK');
    expect(await userById(cores[2], 'fb-mfa')).toMatchObject({ emails: ['mfa@example.com'], phoneNumbers: ['+14155552671'] });
  });

  it('case twins: the first record wins, the dry run says so exactly, and the loser names the winner', async () => {
    const core = await startCore();
    try {
      const hash = bcryptHash('twin-pw');
      const file = temp.file(
        'twins.ndjson',
        ndjson([
          { externalUserId: 'u-1', email: 'Frank.Case@example.com', passwordHash: hash },
          { externalUserId: 'u-2', email: 'other@example.com', passwordHash: hash },
          { externalUserId: 'u-3', email: 'frank.case@example.com', passwordHash: hash },
          { externalUserId: 'u-2', email: 'third@example.com', passwordHash: hash },
        ]),
      );
      const reportPath = temp.file('twins-dry.json', '');
      const dry = await runCommand(migrateArgs(core, 'ndjson', file, '--dry-run', '--report', reportPath));
      const real = await runCommand(migrateArgs(core, 'ndjson', file));
      const losers = [
        {
          user: 'u-3',
          record: 3,
          stage: 'duplicate',
          reason: 'same email frank.case@example.com as record 1, which is imported instead (the first record wins)',
        },
        {
          user: 'u-2',
          record: 4,
          stage: 'duplicate',
          reason: 'same old id u-2 as record 2, which is imported instead (the first record wins)',
        },
      ];
      expect(JSON.parse(fs.readFileSync(reportPath, 'utf8')).notImported).toEqual(losers);
      expect(JSON.parse(fs.readFileSync(`${file}.migrate-report.json`, 'utf8')).notImported).toEqual(losers);
      expect([dry.code, real.code]).toEqual([1, 1]);
      expect(real.stdout).toContain('u-3 (record 3, twin in the export): same email frank.case@example.com as record 1');
      const { rows } = await core.t.db.pool.query(
        'SELECT m.external_user_id, u.email FROM users u JOIN user_id_mappings m USING (user_id) ORDER BY 1',
      );
      expect(rows).toEqual([
        { external_user_id: 'u-1', email: 'frank.case@example.com' },
        { external_user_id: 'u-2', email: 'other@example.com' },
      ]);
    } finally {
      await core.t.close();
    }
  });

  it('reads gzipped exports: Firebase .json.gz, Auth0 .ndjson.gz (and .json.gz) and generic .csv.gz', async () => {
    const core = await startCore();
    try {
      const gz = (name: string, text: string) => temp.file(name, zlib.gzipSync(text) as unknown as string);
      const firebase = gz('fb.json.gz', firebaseJsonExport([{ localId: 'gz-fb', email: 'gzfb@example.com', ...ann }]));
      const auth0Users = [{ user_id: 'auth0|z1', email: 'z1@example.com', identities: [{ provider: 'auth0', user_id: 'z1' }] }];
      const auth0 = gz('auth0.json.gz', ndjson(auth0Users));
      const hashes = gz('hashes.ndjson.gz', ndjson([{ _id: { $oid: 'z1' }, email: 'z1@example.com', passwordHash: bcryptHash('z1-pw') }]));
      const csv = gz('users.csv.gz', 'externalUserId,email,passwordHash\ngz-csv,gzcsv@example.com,' + bcryptHash('csv-pw') + '\n');
      const before = await snapshot(core.t.db);
      expect((await runCommand(migrateArgs(core, 'firebase', firebase, '--dry-run'))).code).toBe(2);
      expect(await snapshot(core.t.db)).toEqual(before);

      expect((await runCommand(migrateArgs(core, 'firebase', firebase, '--hash-config', hashConfig))).code).toBe(0);
      expect((await runCommand(migrateArgs(core, 'auth0', auth0, '--password-hashes', hashes))).code).toBe(0);
      expect((await runCommand(migrateArgs(core, 'csv', csv))).code).toBe(0);
      expect(await countRows(core.t.db, 'users')).toBe(3);
      expect(await signIn(core, 'gzfb@example.com', 'ann-pw')).toBe('OK');
      expect(await signIn(core, 'z1@example.com', 'z1-pw')).toBe('OK');
      expect(await signIn(core, 'gzcsv@example.com', 'csv-pw')).toBe('OK');
    } finally {
      await core.t.close();
    }
  });
});
