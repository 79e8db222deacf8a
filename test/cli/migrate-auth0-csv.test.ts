import fs from 'node:fs';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAuth0Hashes, openSource } from '../../src/cli/readers/index.js';
import { bcryptHash, makeTempDir } from './fixtures.js';
import { migrateArgs, runCommand, signIn, startCore, type RunningCore } from './harness.js';

const ndjson = (lines: object[]) => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
const database = (id: string) => ({ provider: 'auth0', user_id: id, connection: 'Username-Password-Authentication', isSocial: false });

// One tenant's users as the NDJSON export holds them.
const users = [
  {
    user_id: 'auth0|a1',
    email: 'Dana@Example.com',
    email_verified: true,
    created_at: '2021-03-04T05:06:07.000Z',
    name: '=Dana',
    nickname: '+dana',
    given_name: '-D',
    family_name: '@home',
    user_metadata: { plan: 'pro', note: 'says "hi", twice' },
    app_metadata: { tier: 'gold' },
    identities: [database('a1')],
  },
  {
    user_id: 'auth0|a2',
    email: 'eve@example.com',
    email_verified: false,
    created_at: '2021-03-05T00:00:00.000Z',
    identities: [
      database('a2'),
      { provider: 'google-oauth2', user_id: '1170', connection: 'google-oauth2', isSocial: true, profileData: { email: 'eve@gmail.com' } },
    ],
  },
  {
    user_id: 'google-oauth2|1171',
    email: 'frank@gmail.com',
    email_verified: true,
    created_at: '2021-03-06T00:00:00.000Z',
    identities: [{ provider: 'google-oauth2', user_id: '1171', connection: 'google-oauth2', isSocial: true }],
  },
  {
    user_id: 'sms|s1',
    phone_number: '+14155550100',
    created_at: '2021-03-07T00:00:00.000Z',
    identities: [{ provider: 'sms', user_id: 's1' }],
  },
  {
    user_id: 'auth0|a5',
    created_at: '2021-03-08T00:00:00.000Z',
    email: 'blocked@example.com',
    blocked: true,
    identities: [database('a5')],
  },
  { user_id: 'auth0|a6', created_at: '2021-03-08T00:00:00.000Z', email: 'EVE@example.com', identities: [database('a6')] },
  {
    user_id: 'auth0|a7',
    created_at: '2021-03-08T00:00:00.000Z',
    email: 'mfa@example.com',
    multifactor: ['guardian'],
    identities: [database('a7')],
  },
];

const hashes = [
  ['a1', 'dana@example.com', 'dana-pw'],
  ['a2', 'eve@example.com', 'eve-pw'],
  ['a5', 'blocked@example.com', 'blocked-pw'],
  ['a7', 'mfa@example.com', 'mfa-pw'],
].map(([id, email, password]) => ({ _id: { $oid: id }, email, passwordHash: bcryptHash(password) }));

// The fields an export job would be asked for, each a column of the CSV.
const fields = [
  'user_id',
  'email',
  'email_verified',
  'created_at',
  'blocked',
  'phone_number',
  'name',
  'nickname',
  'given_name',
  'family_name',
  'user_metadata.plan',
  'user_metadata.note',
  'app_metadata.tier',
  'identities[0].provider',
  'identities[0].user_id',
  'identities[0].connection',
  'identities[1].provider',
  'identities[1].user_id',
  'identities[1].profileData.email',
  'multifactor[0]',
];

function valueAt(user: object, field: string): unknown {
  return field
    .split(/\.|\[(\d+)\]/)
    .filter((step) => step !== undefined && step !== '')
    .reduce<unknown>((node, step) => (node as Record<string, unknown> | undefined)?.[step], user);
}

/**
 * The export job's CSV: `every` guards every string with a ' (booleans, numbers and ISO dates bare), as the job
 * writes today; `formula` guards only values a spreadsheet would run, as older exports did.
 */
function auth0Csv(guard: 'every' | 'formula'): string {
  const quote = (text: string) => `"${text.replace(/"/g, '""')}"`;
  const cell = (value: unknown) => {
    if (value === undefined) return '';
    if (typeof value !== 'string') return String(value);
    if (/^\d{4}-\d{2}-\d{2}T/.test(value)) return value;
    return guard === 'every' || /^[=+\-@]/.test(value) ? quote(`'${value}`) : quote(value);
  };
  const rows = users.map((user) => fields.map((field) => cell(valueAt(user, field))).join(','));
  return `${[fields.join(','), ...rows].join('\r\n')}\r\n`;
}

describe('migrate auth0: the CSV export job', () => {
  const temp = makeTempDir();
  const cores: RunningCore[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 3; i++) cores.push(await startCore());
  });
  afterAll(async () => {
    await Promise.all(cores.map((core) => core.t.close()));
    temp.remove();
  });

  it('imports the CSV (plain or gzipped, either guarding) exactly as the NDJSON export of the same users', async () => {
    const hashFile = temp.file('hashes.ndjson', ndjson(hashes));
    const files = [
      temp.file('users.json', ndjson(users)),
      temp.file('users.csv', auth0Csv('every')),
      temp.file('users.csv.gz', zlib.gzipSync(auth0Csv('formula')) as unknown as string),
    ];
    const results = [];
    for (const [i, file] of files.entries()) {
      results.push(
        await runCommand(
          migrateArgs(cores[i], 'auth0', file, '--password-hashes', hashFile, '--check-password', 'dana@example.com:dana-pw'),
        ),
      );
    }
    expect(results.map((result) => result.code)).toEqual([1, 1, 1]);

    const comparable = (file: string) => {
      const report = JSON.parse(fs.readFileSync(`${file}.migrate-report.json`, 'utf8'));
      return {
        totals: report.totals,
        notImported: report.notImported,
        collisions: report.collisions,
        notCarried: report.notCarried,
        canary: report.canary,
        created: report.created.map((entry: { user: string }) => entry.user),
      };
    };
    expect(comparable(files[1])).toEqual(comparable(files[0]));
    expect(comparable(files[2])).toEqual(comparable(files[0]));
    expect(comparable(files[0])).toMatchObject({
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
        withDataNotCarried: 1,
      },
      notImported: [
        {
          user: 'auth0|a5',
          record: 5,
          stage: 'skipped',
          reason: 'blocked in the source (pass --include-disabled to import blocked users)',
        },
        { user: 'auth0|a6', record: 6, stage: 'duplicate' },
      ],
      notCarried: [
        {
          user: 'auth0|a7',
          record: 7,
          fields: ['multifactor ["guardian"]: the user export holds no second-factor secret; marked to re-enrol'],
        },
      ],
      created: ['auth0|a1', 'auth0|a2', 'google-oauth2|1171', 'sms|s1', 'auth0|a7'],
    });
    expect(comparable(files[0]).notImported[1].reason).toContain('record 2');

    const rows = async (core: RunningCore) =>
      (
        await core.t.db.pool.query(
          `SELECT m.external_user_id, u.recipe_id, u.email, u.phone_number, u.third_party_id, u.third_party_user_id, u.time_joined, md.metadata
         FROM users u JOIN user_id_mappings m USING (user_id) LEFT JOIN user_metadata md ON md.user_id = m.external_user_id ORDER BY m.external_user_id`,
        )
      ).rows;
    // Each run marks re-enrolment at its own time.
    const withoutMarkTime = (list: Record<string, any>[]) =>
      list.map((row) =>
        row.metadata?.mfaReEnrolment
          ? { ...row, metadata: { ...row.metadata, mfaReEnrolment: { ...row.metadata.mfaReEnrolment, markedAt: 0 } } }
          : row,
      );
    const held = withoutMarkTime(await rows(cores[0]));
    expect(withoutMarkTime(await rows(cores[1]))).toEqual(held);
    expect(withoutMarkTime(await rows(cores[2]))).toEqual(held);
    expect(held.find((row) => row.external_user_id === 'auth0|a7')?.metadata?.mfaReEnrolment).toEqual({
      required: true,
      factors: ['totp'],
      source: 'auth0',
      markedAt: 0,
    });
    expect(held.find((row) => row.external_user_id === 'auth0|a1')).toMatchObject({
      email: 'dana@example.com',
      time_joined: Date.parse('2021-03-04T05:06:07.000Z'),
      metadata: {
        name: '=Dana',
        nickname: '+dana',
        givenName: '-D',
        familyName: '@home',
        userMetadata: { plan: 'pro', note: 'says "hi", twice' },
        appMetadata: { tier: 'gold' },
      },
    });
    for (const core of cores) {
      expect(await signIn(core, 'dana@example.com', 'dana-pw')).toBe('OK');
      expect(await signIn(core, 'eve@example.com', 'eve-pw')).toBe('OK');
      expect(await signIn(core, 'mfa@example.com', 'mfa-pw')).toBe('OK');
      expect(await signIn(core, 'mfa@example.com', 'dana-pw')).toBe('WRONG_CREDENTIALS_ERROR');
    }
  });

  it("keeps an Auth0 user's other identities whole for account linking, from the CSV as from the NDJSON", async () => {
    const auth0Hashes = await loadAuth0Hashes(temp.file('linking-hashes.ndjson', ndjson(hashes)));
    const linkableOf = async (file: string) => {
      const linkable = [];
      const source = openSource('auth0', file, { auth0Hashes, includeDisabled: false, providerOverrides: new Map() });
      for await (const record of source.records) linkable.push(record.user?.loginMethods.slice(1));
      return linkable;
    };
    const fromNdjson = await linkableOf(temp.file('linking.json', ndjson(users)));
    expect(await linkableOf(temp.file('linking.csv', auth0Csv('every')))).toEqual(fromNdjson);
    expect(fromNdjson[1]).toEqual([
      {
        recipeId: 'thirdparty',
        email: 'eve@gmail.com',
        thirdPartyId: 'google',
        thirdPartyUserId: '1170',
        isVerified: false,
        timeJoinedInMSSinceEpoch: Date.parse('2021-03-05T00:00:00.000Z'),
      },
    ]);
  });

  it('ignores columns that cannot name a user field, and never builds huge arrays from a column name', async () => {
    const file = temp.file(
      'odd-columns.csv',
      `user_id,email,__proto__.polluted,identities[100000].provider,user_metadata.constructor\n"'auth0|o1","'o1@example.com","'yes","'auth0","'x"\n`,
    );
    const records = [];
    for await (const record of openSource('auth0', file, { includeDisabled: false, providerOverrides: new Map() }).records)
      records.push(record);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(records).toHaveLength(1);
    expect(records[0].key).toBe('auth0|o1');
    expect(records[0].user).toBeUndefined();
    expect(records[0].problem?.reason).toContain('no password hash');
  });

  it('refuses a row that does not line up with the header without showing it, and a CSV without the header', async () => {
    const misaligned = temp.file('misaligned.csv', `user_id,email\n"'auth0|x1","'x1@example.com",secret-looking,extra\n`);
    const result = await runCommand(migrateArgs(cores[0], 'auth0', misaligned, '--dry-run', '--report', `${misaligned}.report.json`));
    expect(result.stdout).toContain('record 1, invalid in the export): has 4 fields; the header has 2');
    expect(result.stdout).not.toContain('secret-looking');

    const headerless = temp.file('headerless.csv', `"'auth0|x1","'x1@example.com"\n`);
    const refused = await runCommand(migrateArgs(cores[0], 'auth0', headerless));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("the first line must be the export's header naming its fields (user_id, email, …)");
  });
});
