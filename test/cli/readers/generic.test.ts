import { afterAll, describe, expect, it } from 'vitest';
import { openSource, type SourceName } from '../../../src/cli/readers/index.js';
import { bcryptHash, collect, makeTempDir } from '../fixtures.js';

const bcrypt = bcryptHash('pw');
const argon = '$argon2id$v=19$m=1024,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$Q0hBTkdFTUVDSEFOR0VNRUNIQU5HRU1F';
const scrypt =
  '$f_scrypt$qZM035es5AXYqavsKD6/rhtxg7t5PhcyRgv5blc3doYbChX8keMfQLq1ra96O2Pf2TP/eZrR5xtPCYN6mX3ESA==$/cj0jC1br5o4+w==$m=14$r=8$s=Bw==';

const rows = [
  { email: 'a@example.com', passwordHash: bcrypt, externalUserId: 'old-1', timeJoined: '1600000000000', emailVerified: 'true' },
  { email: 'b@example.com', passwordHash: argon, hashingAlgorithm: 'ARGON2', timeJoined: '2020-09-13T12:26:40Z', emailVerified: 'no' },
  { email: 'c@example.com', passwordHash: scrypt, externalUserId: 'old-3' },
  { email: 'd@example.com', thirdPartyId: 'google', thirdPartyUserId: 'g-1', externalUserId: 'old-4', emailVerified: '1' },
  { phoneNumber: '+14155552671', externalUserId: 'old-5' },
  { email: 'e@example.com', phoneNumber: '+442071838751' },
  {
    email: 'f@example.com',
    passwordHash: bcrypt,
    thirdPartyId: 'github',
    thirdPartyUserId: '7',
    phoneNumber: '+33612345678',
    externalUserId: 'old-7',
  },
  { email: 'g@example.com', passwordHash: 'plain-text?', externalUserId: 'old-8' },
  { thirdPartyId: 'google', externalUserId: 'old-9' },
  { email: 'h@example.com', timeJoined: 'soon', externalUserId: 'old-10' },
];

const expected = [
  {
    index: 0,
    key: 'old-1',
    collisions: [],
    user: {
      externalUserId: 'old-1',
      loginMethods: [
        {
          recipeId: 'emailpassword',
          email: 'a@example.com',
          passwordHash: bcrypt,
          hashingAlgorithm: 'bcrypt',
          isVerified: true,
          timeJoinedInMSSinceEpoch: 1600000000000,
        },
      ],
    },
  },
  {
    index: 1,
    key: 'b@example.com',
    collisions: [],
    user: {
      loginMethods: [
        {
          recipeId: 'emailpassword',
          email: 'b@example.com',
          passwordHash: argon,
          hashingAlgorithm: 'ARGON2',
          isVerified: false,
          timeJoinedInMSSinceEpoch: 1600000000000,
        },
      ],
    },
  },
  {
    index: 2,
    key: 'old-3',
    collisions: [],
    user: {
      externalUserId: 'old-3',
      loginMethods: [{ recipeId: 'emailpassword', email: 'c@example.com', passwordHash: scrypt, hashingAlgorithm: 'idp_scrypt' }],
    },
  },
  {
    index: 3,
    key: 'old-4',
    collisions: [],
    user: {
      externalUserId: 'old-4',
      loginMethods: [{ recipeId: 'thirdparty', email: 'd@example.com', thirdPartyId: 'google', thirdPartyUserId: 'g-1', isVerified: true }],
    },
  },
  {
    index: 4,
    key: 'old-5',
    collisions: [],
    user: { externalUserId: 'old-5', loginMethods: [{ recipeId: 'passwordless', phoneNumber: '+14155552671' }] },
  },
  {
    index: 5,
    key: 'e@example.com',
    collisions: [],
    user: { loginMethods: [{ recipeId: 'passwordless', email: 'e@example.com', phoneNumber: '+442071838751' }] },
  },
  {
    index: 6,
    key: 'old-7',
    user: {
      externalUserId: 'old-7',
      loginMethods: [
        { recipeId: 'emailpassword', email: 'f@example.com', passwordHash: bcrypt, hashingAlgorithm: 'bcrypt', isPrimary: true },
        { recipeId: 'thirdparty', email: 'f@example.com', thirdPartyId: 'github', thirdPartyUserId: '7' },
        { recipeId: 'passwordless', phoneNumber: '+33612345678' },
      ],
    },
    collisions: [],
  },
  {
    index: 7,
    key: 'old-8',
    problem: { kind: 'invalid', reason: 'hashingAlgorithm is missing and the hash is in no format the core detects' },
    collisions: [],
  },
  {
    index: 8,
    key: 'old-9',
    problem: { kind: 'invalid', reason: 'thirdPartyId and thirdPartyUserId must be given together' },
    collisions: [],
  },
  {
    index: 9,
    key: 'old-10',
    problem: { kind: 'invalid', reason: 'timeJoined soon is not a time: use ISO 8601 (YYYY-MM-DD) or epoch milliseconds' },
    collisions: [],
  },
];

const columns = [
  'email',
  'passwordHash',
  'hashingAlgorithm',
  'phoneNumber',
  'thirdPartyId',
  'thirdPartyUserId',
  'externalUserId',
  'timeJoined',
  'emailVerified',
] as const;

function csvCell(value: string | undefined): string {
  if (value === undefined) return '';
  return /[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

describe('generic readers', () => {
  const temp = makeTempDir();
  afterAll(() => temp.remove());

  const read = (source: SourceName, file: string) =>
    collect(openSource(source, file, { includeDisabled: false, providerOverrides: new Map() }).records);

  it('reads the documented CSV columns, in any order, with a header', async () => {
    const order = [...columns].reverse();
    const lines = [
      order.join(','),
      ...rows.map((row) => order.map((column) => csvCell((row as Record<string, string | undefined>)[column])).join(',')),
    ];
    expect(await read('csv', temp.file('users.csv', `${lines.join('\n')}\n`))).toEqual(expected);
  });

  it('reads the same fields from NDJSON, with JSON booleans and numbers too', async () => {
    const text = rows.map((row) => JSON.stringify(row)).join('\n');
    expect(await read('ndjson', temp.file('users.ndjson', text))).toEqual(expected);
    const typed = temp.file('typed.ndjson', JSON.stringify({ email: 'x@example.com', emailVerified: true, timeJoined: 1600000000000 }));
    expect((await read('ndjson', typed))[0].user?.loginMethods[0]).toEqual({
      recipeId: 'passwordless',
      email: 'x@example.com',
      isVerified: true,
      timeJoinedInMSSinceEpoch: 1600000000000,
    });
  });

  it('detects the legacy formats as the import route does', async () => {
    const hashes = [
      '$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1',
      '$P$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0',
      '{SSHA}0c0blFTXXNuAMHECS4uxrj3ZieMoWImr',
    ];
    const text = hashes.map((passwordHash, n) => JSON.stringify({ email: `l${n}@example.com`, passwordHash })).join('\n');
    const records = await read('ndjson', temp.file('legacy.ndjson', text));
    expect(records.map((record) => record.user?.loginMethods[0].hashingAlgorithm)).toEqual(['crypt', 'phpass', 'ldap']);
  });

  it('converts an Auth0 custom_password_hash object given as customPasswordHash in NDJSON', async () => {
    const sha256 = {
      algorithm: 'sha256',
      hash: { value: 'bbbd2ff0d03b4b6e48ab3f3ddb2bcf5b7d87ae5fb3cd4cf8eab9e6bd843e7014', encoding: 'hex' },
    };
    const lines = [
      { email: 'c0@example.com', customPasswordHash: { ...sha256, salt: { value: 'NaCl', position: 'suffix' } } },
      { email: 'c1@example.com', customPasswordHash: { ...sha256, algorithm: 'md4' } },
    ];
    const records = await read('ndjson', temp.file('custom.ndjson', lines.map((line) => JSON.stringify(line)).join('\n')));
    expect(records[0].user?.loginMethods[0]).toEqual({
      recipeId: 'emailpassword',
      email: 'c0@example.com',
      passwordHash: '$sha256$pf=e1BBU1NXT1JEfXtTQUxUfQ==$TmFDbA==$u70v8NA7S25Iqz892yvPW32Hrl+zzUz46rnmvYQ+cBQ=',
      hashingAlgorithm: 'salted_digest',
    });
    expect(records[1].problem).toEqual({ kind: 'invalid', reason: 'custom_password_hash algorithm md4 is not supported' });
  });

  it('rejects a CSV without a header, and reports NDJSON lines that are not JSON objects as invalid records', async () => {
    await expect(read('csv', temp.file('noheader.csv', 'a@example.com,$2a$...\n'))).rejects.toThrow(
      'the first line must be a header naming the columns',
    );
    const records = await read(
      'ndjson',
      temp.file('bad.ndjson', '{"email": "a@example.com"}\nnot json\n[1]\n{"email": "b@example.com"}\n'),
    );
    // A bad line is one invalid record; the lines after it are still read.
    expect(records.map((record) => record.problem?.reason ?? record.key)).toEqual([
      'a@example.com',
      expect.stringMatching(/^is not JSON \(/),
      'is not a JSON object',
      'b@example.com',
    ]);
  });

  it.each([
    ['epoch seconds, read as seconds', '1600000000', 1_600_000_000_000],
    ['epoch seconds with a fraction', '1600000000.5', 1_600_000_000_500],
    ['epoch milliseconds', '1600000000123', 1_600_000_000_123],
    ['an ISO 8601 date', '2020-09-13', Date.parse('2020-09-13')],
    ['an ISO 8601 time with an offset', '2020-09-13T14:26:40+02:00', 1_600_000_000_000],
  ])('reads timeJoined given as %s', async (_name, timeJoined, expectedMs) => {
    const [record] = await read('ndjson', temp.file('time.ndjson', JSON.stringify({ email: 'x@example.com', timeJoined })));
    expect(record.user?.loginMethods[0].timeJoinedInMSSinceEpoch).toBe(expectedMs);
  });

  it.each([
    ['07/08/2019', 'timeJoined 07/08/2019 is ambiguous (day and month order): use ISO 8601 (YYYY-MM-DD) or epoch milliseconds'],
    ['8.7.2019', 'timeJoined 8.7.2019 is ambiguous (day and month order): use ISO 8601 (YYYY-MM-DD) or epoch milliseconds'],
    ['1600000000000000', 'timeJoined 1600000000000000 is too large for epoch seconds or milliseconds (microseconds?)'],
    ['Sep 13 2020', 'timeJoined Sep 13 2020 is not a time: use ISO 8601 (YYYY-MM-DD) or epoch milliseconds'],
  ])('refuses timeJoined %s instead of guessing', async (timeJoined, reason) => {
    const records = await read(
      'ndjson',
      temp.file('time.ndjson', JSON.stringify({ externalUserId: 'x', email: 'x@example.com', timeJoined })),
    );
    expect(records).toEqual([{ index: 0, key: 'x', problem: { kind: 'invalid', reason }, collisions: [] }]);
  });

  it.each([
    ['4155550102', 'phoneNumber "4155550102" must be in international format with a leading + and country code, e.g. +14155552671'],
    [
      '0044 20 7183 8751',
      'phoneNumber "0044 20 7183 8751" must be in international format with a leading + and country code, e.g. +14155552671',
    ],
    ['call me', 'phoneNumber (value not shown) must be in international format with a leading + and country code, e.g. +14155552671'],
  ])('refuses the phone number %s, naming the field and the rule', async (phoneNumber, reason) => {
    const records = await read('ndjson', temp.file('phone.ndjson', JSON.stringify({ externalUserId: 'x', phoneNumber })));
    expect(records).toEqual([{ index: 0, key: 'x', problem: { kind: 'invalid', reason }, collisions: [] }]);
  });

  it.each([
    ['bob smith@example.com', 'email "bob smith@example.com" is not a valid email: it contains a space'],
    ['not-an-email', 'email (value not shown) is not a valid email: it has no @'],
    ['a@', 'email "a@" is not a valid email: it has no domain after the @'],
    [
      'zero\u200bwidth@example.com',
      'email "zero\u200bwidth@example.com" is not a valid email: it contains an invisible or control character (U+200B)',
    ],
  ])('refuses the email %s', async (email, reason) => {
    const records = await read(
      'ndjson',
      temp.file('email.ndjson', JSON.stringify({ externalUserId: 'x', email: JSON.parse(`"${email}"`) })),
    );
    expect(records).toEqual([
      { index: 0, key: 'x', problem: { kind: 'invalid', reason: JSON.parse(`"${reason.replace(/"/g, '\\"')}"`) }, collisions: [] },
    ]);
  });

  it('normalises a valid phone number to E.164 and an email to lower case NFC', async () => {
    const [record] = await read(
      'ndjson',
      temp.file('ok.ndjson', JSON.stringify({ email: 'Jose\u0301@Example.com', phoneNumber: '+1 (415) 555-2671' })),
    );
    expect(record.user?.loginMethods[0]).toEqual({ recipeId: 'passwordless', email: 'jos\u00e9@example.com', phoneNumber: '+14155552671' });
  });

  it('refuses a CSV row with more or fewer fields than the header, without showing its content, and warns once of unknown columns', async () => {
    const argon = '$argon2id$v=19$m=1024,t=1,p=1$c29tZXNhbHQ$aGFzaA';
    const text = [
      'externalUserId,email,passwordHash,phoneNumber,nickname',
      `u1,a@example.com,${argon},,x`,
      'u2,b@example.com',
      `u3,'+14155552671@example.com,,'+14155552671,y`,
    ].join('\n');
    const warnings: string[] = [];
    const source = openSource('csv', temp.file('shifted.csv', text), {
      includeDisabled: false,
      providerOverrides: new Map(),
      warn: (m) => warnings.push(m),
    });
    const records = await collect(source.records);
    expect(records.slice(0, 2)).toEqual([
      { index: 0, key: 'record 1', problem: { kind: 'invalid', reason: 'has 7 fields; the header has 5' }, collisions: [] },
      { index: 1, key: 'record 2', problem: { kind: 'invalid', reason: 'has 2 fields; the header has 5' }, collisions: [] },
    ]);
    expect(records[2].user?.loginMethods[0]).toEqual({
      recipeId: 'passwordless',
      email: '+14155552671@example.com',
      phoneNumber: '+14155552671',
    });
    expect(JSON.stringify(records)).not.toContain('c29tZXNhbHQ');
    expect(warnings).toEqual([expect.stringContaining('ignoring unknown field(s) "nickname"')]);
  });
});
