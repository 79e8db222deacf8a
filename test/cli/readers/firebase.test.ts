import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSource, type ReaderOptions } from '../../../src/cli/readers/index.js';
import { parseHashConfig } from '../../../src/cli/readers/hash-config.js';
import { CliError } from '../../../src/cli/cli-error.js';
import { parseIdpScrypt, verifyIdpScrypt } from '../../../src/hashing/idp-scrypt.js';
import {
  collect,
  firebaseCsvLine,
  firebaseJsonExport,
  firebasePassword,
  hashConfigBlock,
  hashParams,
  makeTempDir,
  urlSafe,
  type ExportedPassword,
} from '../fixtures.js';

const options: ReaderOptions = { hashConfig: parseHashConfig(hashConfigBlock), includeDisabled: false, providerOverrides: new Map() };
const created = 1_600_000_000_000;

async function read(file: string, readerOptions = options) {
  return collect(openSource('firebase', file, readerOptions).records);
}

function scryptHash(exported: ExportedPassword): string {
  return `$f_scrypt$${exported.passwordHash}$${exported.salt}$m=${hashParams.memCost}$r=${hashParams.rounds}$s=${hashParams.saltSeparator}`;
}

async function verifies(hash: string, password: string): Promise<boolean> {
  const parsed = parseIdpScrypt(hash);
  if (!parsed.ok) throw new Error(parsed.reason);
  return verifyIdpScrypt(password, parsed.value, Buffer.from(hashParams.signerKey, 'base64'));
}

describe('firebase reader', () => {
  const temp = makeTempDir();
  let alice: ExportedPassword;
  let bob: ExportedPassword;
  beforeAll(async () => {
    alice = await firebasePassword('alice-secret');
    bob = await firebasePassword('bob-secret');
  });
  afterAll(() => temp.remove());

  it('maps every kind of JSON user and streams the users array', async () => {
    const file = temp.file(
      'users.json',
      firebaseJsonExport([
        {
          localId: 'u-alice',
          email: 'Alice@Example.com',
          emailVerified: true,
          passwordHash: alice.passwordHash,
          salt: alice.salt,
          displayName: 'Alice {"[',
          createdAt: String(created),
        },
        {
          localId: 'u-google',
          email: 'g@example.com',
          emailVerified: false,
          createdAt: String(created + 1),
          providerUserInfo: [{ providerId: 'google.com', rawId: '1063', email: 'g@gmail.com' }],
        },
        { localId: 'u-phone', phoneNumber: '+14155552671', createdAt: String(created + 2) },
        { localId: 'u-link', email: 'link@example.com', emailVerified: true, createdAt: String(created + 3) },
        {
          localId: 'u-apple',
          email: 'a@privaterelay.example',
          createdAt: String(created + 4),
          providerUserInfo: [
            { providerId: 'apple.com', rawId: 'apple-1' },
            { providerId: 'microsoft.com', rawId: 'ms-1', email: 'ms@example.com' },
          ],
        },
      ]),
    );

    const records = await read(file);

    expect(records).toEqual([
      {
        index: 0,
        key: 'u-alice',
        collisions: [],
        user: {
          externalUserId: 'u-alice',
          userMetadata: { displayName: 'Alice {"[' },
          loginMethods: [
            {
              recipeId: 'emailpassword',
              email: 'alice@example.com',
              passwordHash: scryptHash(alice),
              hashingAlgorithm: 'idp_scrypt',
              isVerified: true,
              timeJoinedInMSSinceEpoch: created,
            },
          ],
        },
      },
      {
        index: 1,
        key: 'u-google',
        collisions: [],
        user: {
          externalUserId: 'u-google',
          userMetadata: { providers: [{ providerId: 'google.com', rawId: '1063', email: 'g@gmail.com' }] },
          loginMethods: [
            {
              recipeId: 'thirdparty',
              email: 'g@gmail.com',
              thirdPartyId: 'google',
              thirdPartyUserId: '1063',
              isVerified: false,
              timeJoinedInMSSinceEpoch: created + 1,
            },
          ],
        },
      },
      {
        index: 2,
        key: 'u-phone',
        collisions: [],
        user: {
          externalUserId: 'u-phone',
          loginMethods: [
            { recipeId: 'passwordless', phoneNumber: '+14155552671', isVerified: false, timeJoinedInMSSinceEpoch: created + 2 },
          ],
        },
      },
      {
        index: 3,
        key: 'u-link',
        collisions: [],
        user: {
          externalUserId: 'u-link',
          loginMethods: [{ recipeId: 'passwordless', email: 'link@example.com', isVerified: true, timeJoinedInMSSinceEpoch: created + 3 }],
        },
      },
      {
        index: 4,
        key: 'u-apple',
        user: {
          externalUserId: 'u-apple',
          userMetadata: {
            providers: [
              { providerId: 'apple.com', rawId: 'apple-1' },
              { providerId: 'microsoft.com', rawId: 'ms-1', email: 'ms@example.com' },
            ],
          },
          loginMethods: [
            {
              recipeId: 'thirdparty',
              email: 'a@privaterelay.example',
              thirdPartyId: 'apple',
              thirdPartyUserId: 'apple-1',
              isVerified: false,
              timeJoinedInMSSinceEpoch: created + 4,
              isPrimary: true,
            },
            {
              recipeId: 'thirdparty',
              email: 'ms@example.com',
              thirdPartyId: 'microsoft',
              thirdPartyUserId: 'ms-1',
              isVerified: false,
              timeJoinedInMSSinceEpoch: created + 4,
            },
          ],
        },
        collisions: [],
      },
    ]);
    expect(await verifies(records[0].user!.loginMethods[0].passwordHash!, 'alice-secret')).toBe(true);
    expect(await verifies(records[0].user!.loginMethods[0].passwordHash!, 'alice-secreT')).toBe(false);
  });

  it('accepts URL-safe Base64 (Admin SDK dumps, a top-level array) and sends standard Base64', async () => {
    const file = temp.file(
      'admin-sdk.json',
      JSON.stringify([
        {
          uid: 'u-bob',
          email: 'bob@example.com',
          passwordHash: urlSafe(bob.passwordHash),
          passwordSalt: urlSafe(bob.salt),
          metadata: { creationTime: '2020-09-13T12:26:40.000Z' },
          providerData: [],
          providerUserInfo: [{ providerId: 'password', rawId: 'bob@example.com' }],
        },
      ]),
    );

    const [record] = await read(file);

    expect(record.user?.loginMethods[0]).toEqual({
      recipeId: 'emailpassword',
      email: 'bob@example.com',
      passwordHash: scryptHash(bob),
      hashingAlgorithm: 'idp_scrypt',
      isVerified: false,
      timeJoinedInMSSinceEpoch: Date.parse('2020-09-13T12:26:40.000Z'),
    });
    expect(await verifies(record.user!.loginMethods[0].passwordHash!, 'bob-secret')).toBe(true);
  });

  it('keeps a password + Google + phone user whole: password first and primary, the others linked to it', async () => {
    const file = temp.file(
      'multi.json',
      firebaseJsonExport([
        {
          localId: 'u-multi',
          email: 'm@example.com',
          passwordHash: alice.passwordHash,
          salt: alice.salt,
          phoneNumber: '+33612345678',
          providerUserInfo: [
            { providerId: 'google.com', rawId: 'g-77', email: 'm@gmail.com' },
            { providerId: 'phone', rawId: '+33612345678' },
          ],
        },
      ]),
    );

    const [record] = await collect(openSource('firebase', file, options).records);

    expect(record.user?.loginMethods.map((method) => method.recipeId)).toEqual(['emailpassword', 'thirdparty', 'passwordless']);
    expect(record.user?.loginMethods[0]).toMatchObject({ email: 'm@example.com', isPrimary: true });
    expect(record.user?.loginMethods.slice(1)).toEqual([
      { recipeId: 'thirdparty', email: 'm@gmail.com', thirdPartyId: 'google', thirdPartyUserId: 'g-77', isVerified: false },
      { recipeId: 'passwordless', phoneNumber: '+33612345678', isVerified: false },
    ]);
    expect(record.collisions).toEqual([]);
  });

  it.each([
    [
      'a hash that is not Base64',
      { localId: 'x', email: 'x@example.com', passwordHash: 'not*base64', salt: 'c2FsdA==' },
      'invalid',
      'passwordHash is not valid Base64',
    ],
    [
      'a password without a salt',
      { localId: 'x', email: 'x@example.com', passwordHash: 'aGFzaGhhc2hoYXNoaGFzaA==' },
      'invalid',
      'salt is missing or not valid Base64',
    ],
    [
      'a provider without an email',
      { localId: 'x', providerUserInfo: [{ providerId: 'github.com', rawId: '5' }] },
      'invalid',
      'github.com identity has no email (the core needs one for third-party users)',
    ],
    [
      'an anonymous user',
      { localId: 'x' },
      'skipped',
      'anonymous user: no email, phone number, password or identity provider to sign in with',
    ],
    [
      'an unreadable createdAt',
      { localId: 'x', email: 'x@example.com', createdAt: 'yesterday' },
      'invalid',
      'createdAt yesterday is not a time',
    ],
    [
      'a disabled user',
      { localId: 'x', email: 'x@example.com', disabled: true },
      'skipped',
      'disabled in the source (pass --include-disabled to import disabled users)',
    ],
  ])('reports %s instead of sending it', async (_name, user, kind, reason) => {
    const file = temp.file('bad.json', firebaseJsonExport([user]));
    expect(await read(file)).toEqual([{ index: 0, key: 'x', problem: { kind, reason }, collisions: [] }]);
  });

  it('imports disabled users with --include-disabled', async () => {
    const file = temp.file('disabled.json', firebaseJsonExport([{ localId: 'x', email: 'x@example.com', disabled: true }]));
    const [record] = await read(file, { ...options, includeDisabled: true });
    expect(record.user?.loginMethods[0].recipeId).toBe('passwordless');
  });

  it('applies --map-provider names before the built-in ones', async () => {
    const file = temp.file(
      'map.json',
      firebaseJsonExport([
        {
          localId: 'x',
          email: 'x@example.com',
          providerUserInfo: [
            { providerId: 'oidc.corp', rawId: 'c-1' },
            { providerId: 'google.com', rawId: 'g-1' },
          ],
        },
      ]),
    );
    const [record] = await read(file, { ...options, providerOverrides: new Map([['oidc.corp', 'corp-sso']]) });
    // Known providers come first, in the CSV export's column order, so that JSON and CSV give the same user.
    expect(record.user?.loginMethods[0]).toMatchObject({ thirdPartyId: 'google', thirdPartyUserId: 'g-1', isPrimary: true });
    expect(record.user?.loginMethods[1]).toMatchObject({ thirdPartyId: 'corp-sso', thirdPartyUserId: 'c-1', email: 'x@example.com' });
    expect(record.collisions).toEqual([]);
  });

  it('refuses password users without --hash-config, and files that are not exports', async () => {
    const file = temp.file(
      'nohash.json',
      firebaseJsonExport([{ localId: 'x', email: 'x@example.com', passwordHash: alice.passwordHash, salt: alice.salt }]),
    );
    await expect(read(file, { ...options, hashConfig: undefined })).rejects.toThrow(
      new CliError("this export holds password hashes: pass --hash-config <file> with the project's hash_config block"),
    );
    const other = temp.file('other.json', '{"accounts": []}');
    await expect(read(other)).rejects.toThrow(`${other} is not an auth:export JSON file (no "users" array found)`);
    const broken = temp.file('broken.json', '{"users": [{"localId": "a"}, {"localId": ');
    await expect(read(broken)).rejects.toThrow(`${broken} is not an auth:export JSON file (the file ends in the middle of a JSON value)`);
    await expect(read(temp.file('users.txt', ''))).rejects.toThrow('pass --format json or --format csv');
  });

  it('reads custom claims holding backslash-escaped quotes from the CSV as firebase-tools writes them, as from the JSON', async () => {
    // A JSON string inside a claim, and a value ending in a backslash: `\"` is followed by a comma, and by the claim's
    // closing quote, which the exporter leaves single.
    const customAttributes = JSON.stringify({ tags: '["a","b"]', path: 'C:\\' });
    const account = { localId: 'u-claims', email: 'claims@example.com', customAttributes };
    const csv = await read(
      temp.file('claims.csv', `${firebaseCsvLine(account)}\n${firebaseCsvLine({ localId: 'u-next', email: 'n@example.com' })}\n`),
    );
    const json = await read(temp.file('claims.json', firebaseJsonExport([account, { localId: 'u-next', email: 'n@example.com' }])));
    expect(csv[0].user?.userMetadata).toEqual({ appMetadata: { tags: '["a","b"]', path: 'C:\\' } });
    expect(csv.map((record) => [record.key, record.user?.userMetadata, record.problem])).toEqual(
      json.map((record) => [record.key, record.user?.userMetadata, record.problem]),
    );
  });

  it('reads the CSV export with the same mapping', async () => {
    const lines = [
      firebaseCsvLine({
        localId: 'u-alice',
        email: 'alice@example.com',
        emailVerified: true,
        ...alice,
        displayName: 'Smith, Alice',
        createdAt: created,
        customAttributes: '{"admin": true}',
      }),
      firebaseCsvLine({
        localId: 'u-bob',
        email: 'bob@example.com',
        passwordHash: urlSafe(bob.passwordHash),
        salt: urlSafe(bob.salt),
        github: { rawId: '42', email: 'bob@github.example' },
        createdAt: created + 1,
      }),
      firebaseCsvLine({ localId: 'u-google', email: 'g@example.com', google: { rawId: '1063' }, createdAt: created + 2 }),
      firebaseCsvLine({ localId: 'u-phone', phoneNumber: '+14155552671', createdAt: created + 3 }),
      firebaseCsvLine({ localId: 'u-off', email: 'off@example.com', disabled: true }),
    ];
    const file = temp.file('users.csv', `${lines.join('\r\n')}\r\n`);

    const records = await read(file);

    expect(records).toEqual([
      {
        index: 0,
        key: 'u-alice',
        collisions: [],
        user: {
          externalUserId: 'u-alice',
          userMetadata: { displayName: 'Smith, Alice', appMetadata: { admin: true } },
          loginMethods: [
            {
              recipeId: 'emailpassword',
              email: 'alice@example.com',
              passwordHash: scryptHash(alice),
              hashingAlgorithm: 'idp_scrypt',
              isVerified: true,
              timeJoinedInMSSinceEpoch: created,
            },
          ],
        },
      },
      {
        index: 1,
        key: 'u-bob',
        user: {
          externalUserId: 'u-bob',
          userMetadata: { providers: [{ providerId: 'github.com', rawId: '42', email: 'bob@github.example' }] },
          loginMethods: [
            {
              recipeId: 'emailpassword',
              email: 'bob@example.com',
              passwordHash: scryptHash(bob),
              hashingAlgorithm: 'idp_scrypt',
              isVerified: false,
              timeJoinedInMSSinceEpoch: created + 1,
              isPrimary: true,
            },
            {
              recipeId: 'thirdparty',
              email: 'bob@github.example',
              thirdPartyId: 'github',
              thirdPartyUserId: '42',
              isVerified: false,
              timeJoinedInMSSinceEpoch: created + 1,
            },
          ],
        },
        collisions: [],
      },
      {
        index: 2,
        key: 'u-google',
        collisions: [],
        user: {
          externalUserId: 'u-google',
          userMetadata: { providers: [{ providerId: 'google.com', rawId: '1063' }] },
          loginMethods: [
            {
              recipeId: 'thirdparty',
              email: 'g@example.com',
              thirdPartyId: 'google',
              thirdPartyUserId: '1063',
              isVerified: false,
              timeJoinedInMSSinceEpoch: created + 2,
            },
          ],
        },
      },
      {
        index: 3,
        key: 'u-phone',
        collisions: [],
        user: {
          externalUserId: 'u-phone',
          loginMethods: [
            { recipeId: 'passwordless', phoneNumber: '+14155552671', isVerified: false, timeJoinedInMSSinceEpoch: created + 3 },
          ],
        },
      },
      {
        index: 4,
        key: 'u-off',
        problem: { kind: 'skipped', reason: 'disabled in the source (pass --include-disabled to import disabled users)' },
        collisions: [],
      },
    ]);
    expect(await verifies(records[1].user!.loginMethods[0].passwordHash!, 'bob-secret')).toBe(true);
  });

  it('skips a header row if someone added one to the CSV', async () => {
    const file = temp.file('header.csv', `UID,Email,Email Verified\n${firebaseCsvLine({ localId: 'u1', email: 'u1@example.com' })}\n`);
    expect((await read(file)).map((record) => record.key)).toEqual(['u1']);
  });
});
