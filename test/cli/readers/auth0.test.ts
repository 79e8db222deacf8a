import { afterAll, describe, expect, it } from 'vitest';
import { loadAuth0Hashes, openSource, type ReaderOptions } from '../../../src/cli/readers/index.js';
import { bcryptHash, collect, makeTempDir } from '../fixtures.js';

const ndjson = (lines: object[]) => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;

describe('auth0 reader', () => {
  const temp = makeTempDir();
  afterAll(() => temp.remove());

  const aliceHash = bcryptHash('alice-pw');
  const bobHash = bcryptHash('bob-pw');
  const twinA = bcryptHash('twin-a');
  const twinB = bcryptHash('twin-b');
  const hashesFile = temp.file(
    'hashes.ndjson',
    ndjson([
      {
        _id: { $oid: '5dea9f9c82dd7c0e76e4ec93' },
        email: 'Alice@Example.com',
        email_verified: true,
        passwordHash: aliceHash,
        connection: 'Username-Password-Authentication',
      },
      // Some lines carry the email only in `identifiers`.
      {
        _id: { $oid: '000000000000000000000002' },
        passwordHash: bobHash,
        identifiers: [{ type: 'email', value: 'bob@example.com', verified: false }],
      },
      { _id: { $oid: '000000000000000000000003' }, email: 'twin@example.com', passwordHash: twinA, connection: 'db-a' },
      { _id: { $oid: '000000000000000000000004' }, alt_id: 'legacy-4', email: 'twin@example.com', passwordHash: twinB, connection: 'db-b' },
    ]),
  );
  const usersFile = temp.file(
    'users.ndjson',
    ndjson([
      {
        user_id: 'auth0|5dea9f9c82dd7c0e76e4ec93',
        email: 'alice@example.com',
        email_verified: true,
        created_at: '2019-12-06T18:36:12.412Z',
        identities: [
          { provider: 'auth0', user_id: '5dea9f9c82dd7c0e76e4ec93', connection: 'Username-Password-Authentication', isSocial: false },
        ],
      },
      {
        user_id: 'auth0|000000000000000000000002',
        email: 'bob@example.com',
        email_verified: false,
        created_at: '2020-01-01T00:00:00.000Z',
        identities: [
          {
            provider: 'google-oauth2',
            user_id: '1170',
            connection: 'google-oauth2',
            isSocial: true,
            profileData: { email: 'bob@gmail.com' },
          },
          { provider: 'auth0', user_id: '000000000000000000000002', connection: 'Username-Password-Authentication', isSocial: false },
        ],
      },
      { user_id: 'github|99', email: 'gh@example.com', created_at: '2020-01-02T00:00:00.000Z' },
      { user_id: 'email|abc', email: 'magic@example.com', email_verified: true, identities: [{ provider: 'email', user_id: 'abc' }] },
      { user_id: 'sms|def', phone_number: '+14155552671', identities: [{ provider: 'sms', user_id: 'def' }] },
      { user_id: 'auth0|legacy-4', email: 'twin@example.com', identities: [{ provider: 'auth0', user_id: 'legacy-4' }] },
      { user_id: 'auth0|nohash', email: 'nohash@example.com', identities: [{ provider: 'auth0', user_id: 'nohash' }] },
      { user_id: 'auth0|blocked', email: 'blocked@example.com', blocked: true, identities: [{ provider: 'auth0', user_id: 'blocked' }] },
    ]),
  );

  async function read(extra: Partial<ReaderOptions> = {}) {
    const auth0Hashes = await loadAuth0Hashes(hashesFile);
    return collect(openSource('auth0', usersFile, { auth0Hashes, includeDisabled: false, providerOverrides: new Map(), ...extra }).records);
  }

  it('joins the password-hash export by email and maps identities', async () => {
    expect(await read()).toEqual([
      {
        index: 0,
        key: 'auth0|5dea9f9c82dd7c0e76e4ec93',
        collisions: [],
        user: {
          externalUserId: 'auth0|5dea9f9c82dd7c0e76e4ec93',
          loginMethods: [
            {
              recipeId: 'emailpassword',
              email: 'alice@example.com',
              hashingAlgorithm: 'bcrypt',
              passwordHash: aliceHash,
              isVerified: true,
              timeJoinedInMSSinceEpoch: Date.parse('2019-12-06T18:36:12.412Z'),
            },
          ],
        },
      },
      {
        index: 1,
        key: 'auth0|000000000000000000000002',
        user: {
          externalUserId: 'auth0|000000000000000000000002',
          loginMethods: [
            {
              recipeId: 'emailpassword',
              email: 'bob@example.com',
              hashingAlgorithm: 'bcrypt',
              passwordHash: bobHash,
              isVerified: false,
              timeJoinedInMSSinceEpoch: Date.parse('2020-01-01T00:00:00.000Z'),
              isPrimary: true,
            },
            {
              recipeId: 'thirdparty',
              email: 'bob@gmail.com',
              thirdPartyId: 'google',
              thirdPartyUserId: '1170',
              isVerified: false,
              timeJoinedInMSSinceEpoch: Date.parse('2020-01-01T00:00:00.000Z'),
            },
          ],
        },
        collisions: [],
      },
      {
        index: 2,
        key: 'github|99',
        collisions: [],
        user: {
          externalUserId: 'github|99',
          loginMethods: [
            {
              recipeId: 'thirdparty',
              email: 'gh@example.com',
              thirdPartyId: 'github',
              thirdPartyUserId: '99',
              isVerified: false,
              timeJoinedInMSSinceEpoch: Date.parse('2020-01-02T00:00:00.000Z'),
            },
          ],
        },
      },
      {
        index: 3,
        key: 'email|abc',
        collisions: [],
        user: { externalUserId: 'email|abc', loginMethods: [{ recipeId: 'passwordless', email: 'magic@example.com', isVerified: true }] },
      },
      {
        index: 4,
        key: 'sms|def',
        collisions: [],
        user: { externalUserId: 'sms|def', loginMethods: [{ recipeId: 'passwordless', phoneNumber: '+14155552671', isVerified: false }] },
      },
      {
        index: 5,
        key: 'auth0|legacy-4',
        collisions: [],
        user: {
          externalUserId: 'auth0|legacy-4',
          loginMethods: [
            { recipeId: 'emailpassword', email: 'twin@example.com', hashingAlgorithm: 'bcrypt', passwordHash: twinB, isVerified: false },
          ],
        },
      },
      {
        index: 6,
        key: 'auth0|nohash',
        problem: { kind: 'invalid', reason: 'no password hash for nohash@example.com in the password-hash export' },
        collisions: [],
      },
      {
        index: 7,
        key: 'auth0|blocked',
        problem: { kind: 'skipped', reason: 'blocked in the source (pass --include-disabled to import blocked users)' },
        collisions: [],
      },
    ]);
  });

  it('says which file is missing when no hash export is given, and keeps a social identity usable', async () => {
    const records = await read({ auth0Hashes: undefined });
    expect(records[0].problem).toEqual({
      kind: 'invalid',
      reason: 'no password hash: pass --password-hashes <file> (the password-hash export), or --lazy-source',
    });
    // Without the hash the Google identity is the only one that can be imported; the password method is reported.
    expect(records[1].user?.loginMethods[0]).toMatchObject({ recipeId: 'thirdparty', thirdPartyId: 'google' });
    expect(records[1].collisions).toEqual([
      {
        recipeId: 'emailpassword',
        email: 'bob@example.com',
        problem: 'no password hash: pass --password-hashes <file> (the password-hash export), or --lazy-source',
      },
    ]);
  });

  it('reports an email with two different hashes when the user id does not tell them apart', async () => {
    const auth0Hashes = await loadAuth0Hashes(hashesFile);
    expect(auth0Hashes.find('TWIN@example.com', 'auth0|000000000000000000000003')).toEqual({ hash: twinA });
    expect(auth0Hashes.find('twin@example.com', 'auth0|other')).toEqual({
      problem: 'several password hashes for twin@example.com in the password-hash export',
    });
    expect(auth0Hashes.size).toBe(3);
  });

  it('rejects a user export that is not NDJSON', async () => {
    const file = temp.file('array.json', '[{"user_id": "auth0|1"},\n{"user_id": "auth0|2"}]');
    await expect(collect(openSource('auth0', file, { includeDisabled: false, providerOverrides: new Map() }).records)).rejects.toThrow(
      /record 1 is not JSON \(.*\): the user export must be NDJSON \(format "json"\)/,
    );
  });
});
