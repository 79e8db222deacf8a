import { describe, expect, it } from 'vitest';
import { call, createTestApp, snapshot, useTestApp } from '../helper.js';
import { bcryptHash } from '../cli/fixtures.js';
import { SoftAuthenticator } from '../recipes/webauthn/authenticator.js';

const t = useTestApp({}, { truncateEach: true });

const hash = bcryptHash('pw');

async function importUser(user: object): Promise<void> {
  expect((await call(t.app, 'POST', '/bulk-import/import', { body: user })).statusCode).toBe(200);
}

describe('GET /bulk-import/core-identity', () => {
  it('answers the same id every time, created by the migration, and another database has another', async () => {
    const first = await call(t.app, 'GET', '/bulk-import/core-identity');
    expect(first.statusCode).toBe(200);
    const { rows } = await t.db.pool.query<{ core_id: string }>('SELECT core_id FROM core_identity');
    expect(first.json).toEqual({ status: 'OK', coreId: rows[0].core_id, importsAtOnce: true, webauthnRpIds: null });
    expect((await call(t.app, 'GET', '/bulk-import/core-identity')).json).toEqual(first.json);
    const other = await createTestApp();
    try {
      const second = await call(other.app, 'GET', '/bulk-import/core-identity');
      expect((second.json as { coreId: string }).coreId).not.toBe(rows[0].core_id);
    } finally {
      await other.close();
    }
  });
});

describe('passkeys in the migration support routes', () => {
  it('the identity names the RP ids passkeys import for; a webauthn email is looked up among webauthn login methods', async () => {
    const other = await createTestApp({ webauthn_rp_ids: 'Example.com, login.example.org' });
    try {
      const identity = await call(other.app, 'GET', '/bulk-import/core-identity');
      expect((identity.json as { webauthnRpIds: string[] }).webauthnRpIds).toEqual(['example.com', 'login.example.org']);
      const key = new SoftAuthenticator();
      const imported = await call(other.app, 'POST', '/bulk-import/import', {
        body: {
          externalUserId: 'pk-1',
          loginMethods: [
            {
              recipeId: 'webauthn',
              email: 'pk@example.com',
              credentials: [{ credentialId: key.id, publicKey: key.coseKey().toString('base64url'), rpId: 'example.com' }],
            },
          ],
        },
      });
      expect(imported.statusCode).toBe(200);
      const lookup = async (body: object) =>
        (
          (await call(other.app, 'POST', '/bulk-import/users/lookup', { body })).json as {
            users: { externalUserId: string; recipeId: string }[];
          }
        ).users;
      expect(await lookup({ webauthnEmails: ['PK@example.com'] })).toMatchObject([{ externalUserId: 'pk-1', recipeId: 'webauthn' }]);
      expect(await lookup({ emails: ['pk@example.com'] })).toEqual([]);
    } finally {
      await other.close();
    }
  });
});

describe('POST /bulk-import/users/lookup', () => {
  it('looks an email up among the recipe asked: password users, passwordless users, or both', async () => {
    await importUser({
      externalUserId: 'pw',
      loginMethods: [{ recipeId: 'emailpassword', email: 'same@example.com', passwordHash: hash, hashingAlgorithm: 'bcrypt' }],
    });
    await importUser({ externalUserId: 'pl', loginMethods: [{ recipeId: 'passwordless', email: 'same@example.com' }] });
    const found = async (body: object) =>
      ((await call(t.app, 'POST', '/bulk-import/users/lookup', { body })).json as { users: { externalUserId: string }[] }).users
        .map((user) => user.externalUserId)
        .sort();
    expect(await found({ emailPasswordEmails: ['same@example.com'] })).toEqual(['pw']);
    expect(await found({ passwordlessEmails: ['SAME@example.com'] })).toEqual(['pl']);
    expect(await found({ emails: ['same@example.com'] })).toEqual(['pl', 'pw']);
  });

  it('finds users by old id, internal id, email, phone number and third-party account in one call', async () => {
    await importUser({
      externalUserId: 'old-1',
      loginMethods: [
        {
          recipeId: 'emailpassword',
          email: 'a@example.com',
          passwordHash: hash,
          hashingAlgorithm: 'bcrypt',
          timeJoinedInMSSinceEpoch: 1000,
        },
      ],
    });
    await importUser({ loginMethods: [{ recipeId: 'passwordless', phoneNumber: '+14155552671', timeJoinedInMSSinceEpoch: 2000 }] });
    await importUser({
      loginMethods: [
        { recipeId: 'thirdparty', email: 'g@example.com', thirdPartyId: 'google', thirdPartyUserId: 'g-1', timeJoinedInMSSinceEpoch: 3000 },
      ],
    });
    await importUser({
      loginMethods: [
        {
          recipeId: 'emailpassword',
          email: 'b@example.com',
          passwordHash: hash,
          hashingAlgorithm: 'bcrypt',
          timeJoinedInMSSinceEpoch: 4000,
        },
      ],
    });
    const ids = Object.fromEntries(
      (await t.db.pool.query<{ user_id: string; time_joined: number }>('SELECT user_id, time_joined FROM users')).rows.map((row) => [
        row.time_joined,
        row.user_id,
      ]),
    );

    const reply = await call(t.app, 'POST', '/bulk-import/users/lookup', {
      body: {
        externalUserIds: ['old-1', 'old-404'],
        userIds: [ids[4000], 'no-such-id'],
        emails: [' A@Example.com ', 'nobody@example.com'],
        phoneNumbers: ['+1 415 555 2671'],
        thirdPartyAccounts: [
          { thirdPartyId: 'google', thirdPartyUserId: 'g-1' },
          { thirdPartyId: 'github', thirdPartyUserId: 'g-1' },
        ],
      },
    });

    expect(reply.statusCode).toBe(200);
    const users = (reply.json as { users: { userId: string }[] }).users;
    expect([...users].sort((a, b) => a.userId.localeCompare(b.userId))).toEqual(
      [
        {
          userId: ids[1000],
          externalUserId: 'old-1',
          groupId: ids[1000],
          recipeId: 'emailpassword',
          timeJoined: 1000,
          email: 'a@example.com',
        },
        { userId: ids[2000], groupId: ids[2000], recipeId: 'passwordless', timeJoined: 2000, phoneNumber: '+14155552671' },
        {
          userId: ids[3000],
          groupId: ids[3000],
          recipeId: 'thirdparty',
          timeJoined: 3000,
          email: 'g@example.com',
          thirdPartyId: 'google',
          thirdPartyUserId: 'g-1',
        },
        { userId: ids[4000], groupId: ids[4000], recipeId: 'emailpassword', timeJoined: 4000, email: 'b@example.com' },
      ].sort((a, b) => a.userId.localeCompare(b.userId)),
    );
    expect(JSON.stringify(reply.json)).not.toContain('$2');
  });

  it('answers every login method of a linked user that one key finds, each with the user id', async () => {
    const password = await call(t.app, 'POST', '/recipe/user/passwordhash/import', {
      body: { email: 'l@example.com', passwordHash: hash, hashingAlgorithm: 'bcrypt' },
    });
    const google = await call(t.app, 'POST', '/recipe/signinup', {
      body: { thirdPartyId: 'google', thirdPartyUserId: 'g-9', email: { id: 'l@example.com' } },
    });
    const primaryId = (password.json as { user: { id: string } }).user.id;
    const googleId = (google.json as { user: { id: string } }).user.id;
    expect((await call(t.app, 'POST', '/recipe/accountlinking/user/primary', { body: { recipeUserId: primaryId } })).statusCode).toBe(200);
    const link = await call(t.app, 'POST', '/recipe/accountlinking/user/link', {
      body: { recipeUserId: googleId, primaryUserId: primaryId },
    });
    expect(link.json).toMatchObject({ status: 'OK' });

    const reply = await call(t.app, 'POST', '/bulk-import/users/lookup', {
      body: { thirdPartyAccounts: [{ thirdPartyId: 'google', thirdPartyUserId: 'g-9' }] },
    });
    const users = (reply.json as { users: { userId: string; recipeId: string; groupId: string }[] }).users;
    expect(
      users.map(({ userId, recipeId, groupId }) => ({ userId, recipeId, groupId })).sort((a, b) => a.recipeId.localeCompare(b.recipeId)),
    ).toEqual([
      { userId: primaryId, recipeId: 'emailpassword', groupId: primaryId },
      { userId: googleId, recipeId: 'thirdparty', groupId: primaryId },
    ]);
  });

  it('answers an empty list for no keys, and refuses more than 10000 keys of a kind without reading anything', async () => {
    expect((await call(t.app, 'POST', '/bulk-import/users/lookup', { body: {} })).json).toEqual({ status: 'OK', users: [] });
    const before = await snapshot(t.db);
    const tooMany = await call(t.app, 'POST', '/bulk-import/users/lookup', { body: { emails: Array(10_001).fill('a@example.com') } });
    expect([tooMany.statusCode, tooMany.body]).toEqual([400, "Field name 'emails' cannot contain more than 10000 elements\n"]);
    const wrongType = await call(t.app, 'POST', '/bulk-import/users/lookup', { body: { externalUserIds: 'old-1' } });
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.body).toContain('externalUserIds');
    expect(await snapshot(t.db)).toEqual(before);
  });
});
