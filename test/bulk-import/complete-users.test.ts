import { describe, expect, it } from 'vitest';
import { call, createTestApp, snapshot, useTestApp } from '../helper.js';
import { sourceEntry } from '../lazy-migration/sources.js';
import { bcryptHash } from '../cli/fixtures.js';

const t = useTestApp({ bulk_import_worker: false }, { truncateEach: true });

const SHA1_BASE32 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const hash = bcryptHash('pw');
const google = (n: number) => ({ recipeId: 'thirdparty', email: `u${n}@example.com`, thirdPartyId: 'google', thirdPartyUserId: `g-${n}` });
const password = (n: number) => ({ recipeId: 'emailpassword', email: `u${n}@example.com`, passwordHash: hash, hashingAlgorithm: 'bcrypt' });

// Answers the core's own id of the user (the user object shows its old id).
async function importUser(user: { externalUserId: string } & Record<string, unknown>): Promise<string> {
  const reply = await call(t.app, 'POST', '/bulk-import/import', { body: user });
  expect(reply.statusCode).toBe(200);
  const { rows } = await t.db.pool.query('SELECT user_id FROM user_id_mappings WHERE external_user_id = $1', [user.externalUserId]);
  return rows[0].user_id;
}

const complete = (users: object[]) => call(t.app, 'POST', '/bulk-import/users/complete', { body: { users } });
const getJson = async (url: string, query: Record<string, string>) => (await call(t.app, 'GET', url, { query })).json;

describe('POST /bulk-import/users/complete', () => {
  it('adds the login method a user lacks, linked to the same user, and a second call changes nothing', async () => {
    const userId = await importUser({ externalUserId: 'auth0|1', loginMethods: [google(1)] });
    const record = { externalUserId: 'auth0|1', loginMethods: [{ ...password(1), isPrimary: true }, google(1)] };

    const first = await complete([record]);
    expect(first.statusCode).toBe(200);
    expect(first.json).toEqual({ status: 'OK', users: [{ status: 'COMPLETED', userId, added: ['emailpassword login method'] }] });

    const signIn = await call(t.app, 'POST', '/recipe/signin', { body: { email: 'u1@example.com', password: 'pw' } });
    expect(signIn.json.status).toBe('OK');
    expect(signIn.json.user.id).toBe('auth0|1');
    const user = (await getJson('/user/id', { userId: 'auth0|1' })).user;
    expect(user.isPrimaryUser).toBe(true);
    expect(user.loginMethods.map((method: { recipeId: string }) => method.recipeId).sort()).toEqual(['emailpassword', 'thirdparty']);

    const before = await snapshot(t.db);
    expect((await complete([record])).json).toEqual({ status: 'OK', users: [{ status: 'UNCHANGED', userId }] });
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('answers NOT_FOUND for an old id no user holds, and creates nothing', async () => {
    const before = await snapshot(t.db);
    const reply = await complete([{ externalUserId: 'nobody', loginMethods: [password(9)] }]);
    expect(reply.json).toEqual({ status: 'OK', users: [{ status: 'NOT_FOUND' }] });
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('refuses bad input with 400 naming each user and field, writing nothing', async () => {
    await importUser({ externalUserId: 'auth0|1', loginMethods: [google(1)] });
    const before = await snapshot(t.db);
    const reply = await complete([
      { externalUserId: 'auth0|1', loginMethods: [password(1)] },
      { loginMethods: [password(2)] },
      {
        externalUserId: 'auth0|3',
        loginMethods: [{ recipeId: 'emailpassword', email: 'u3@example.com', passwordHash: 'nope', hashingAlgorithm: 'bcrypt' }],
      },
    ]);
    expect(reply.statusCode).toBe(400);
    expect(reply.json.error).toBe('Data has missing or invalid fields. Please check the users field for more details.');
    expect(reply.json.users.map((entry: { index: number }) => entry.index)).toEqual([1, 2]);
    expect(reply.json.users[0].errors).toEqual(['externalUserId is required.']);
    expect(reply.json.users[1].errors).toEqual([
      'Password hash is in invalid BCrypt format: this is not a hash format this core knows (a plain-text password, or a bare digest without its prefix?)',
    ]);
    expect(await snapshot(t.db)).toEqual(before);

    const notArray = await call(t.app, 'POST', '/bulk-import/users/complete', { body: { users: 'x' } });
    expect(notArray.statusCode).toBe(400);
    expect(notArray.body).toContain('users');
    const tooMany = await complete(Array.from({ length: 10_001 }, () => ({})));
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json).toEqual({ error: 'You can only add 10000 users at a time.' });
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('a login method another user holds is a conflict for that user only, naming the value and the holder', async () => {
    const firstId = await importUser({ externalUserId: 'auth0|1', loginMethods: [google(1)] });
    const secondId = await importUser({ externalUserId: 'auth0|2', loginMethods: [google(2)] });
    await importUser({ externalUserId: 'other', loginMethods: [password(1)] });
    const before = await t.db.pool.query('SELECT * FROM user_ids ORDER BY user_id');

    const reply = await complete([
      { externalUserId: 'auth0|1', userMetadata: { plan: 'pro' }, loginMethods: [password(1), google(1)] },
      { externalUserId: 'auth0|2', loginMethods: [password(2), google(2)] },
    ]);
    expect(reply.json).toEqual({
      status: 'OK',
      users: [
        { status: 'CONFLICT', userId: firstId, reason: 'email u1@example.com already belongs to user other' },
        { status: 'COMPLETED', userId: secondId, added: ['emailpassword login method'] },
      ],
    });
    // Nothing of the refused completion is written: not its metadata, not a login method.
    expect(await getJson('/recipe/user/metadata', { userId: 'auth0|1' })).toEqual({ status: 'OK', metadata: {} });
    const after = await t.db.pool.query('SELECT * FROM user_ids WHERE group_id <> $1 ORDER BY user_id', [secondId]);
    expect(after.rows).toEqual(before.rows.filter((row: { group_id: string }) => row.group_id !== secondId));
  });

  it('an email another primary user reserves is a conflict (AL-2)', async () => {
    await importUser({ externalUserId: 'auth0|1', loginMethods: [google(1)] });
    await importUser({
      externalUserId: 'holder',
      loginMethods: [{ ...google(7), email: 'shared@example.com', isPrimary: true }],
    });
    const reply = await complete([
      { externalUserId: 'auth0|1', loginMethods: [{ recipeId: 'passwordless', email: 'shared@example.com' }, google(1)] },
    ]);
    expect(reply.json.users).toEqual([
      { status: 'CONFLICT', userId: expect.any(String), reason: 'email shared@example.com already belongs to user holder' },
    ]);
  });

  it('adds second factors and recovery codes only to a user with none, metadata keys it lacks, roles it lacks', async () => {
    await call(t.app, 'PUT', '/recipe/role', { body: { role: 'admin', permissions: [] } });
    await call(t.app, 'PUT', '/recipe/role', { body: { role: 'viewer', permissions: [] } });
    const userId = await importUser({
      externalUserId: 'okta|1',
      userMetadata: { plan: 'free' },
      userRoles: [{ role: 'viewer', tenantIds: ['public'] }],
      loginMethods: [password(1)],
    });
    const record = {
      externalUserId: 'okta|1',
      userMetadata: { plan: 'enterprise', team: 'blue' },
      userRoles: [
        { role: 'viewer', tenantIds: ['public'] },
        { role: 'admin', tenantIds: ['public'] },
      ],
      totpDevices: [{ secretKey: SHA1_BASE32 }],
      recoveryCodes: ['abcd-efgh-ij', 'klmn-opqr-st'],
      loginMethods: [password(1)],
    };
    const reply = await complete([record]);
    expect(reply.json).toEqual({
      status: 'OK',
      users: [
        {
          status: 'COMPLETED',
          userId,
          added: ['1 TOTP device', '2 recovery codes', 'metadata keys team, _supertokens', 'role admin'],
        },
      ],
    });
    // The value the app holds is kept; the key it lacked is added.
    expect((await getJson('/recipe/user/metadata', { userId: 'okta|1' })).metadata).toEqual({
      plan: 'free',
      team: 'blue',
      _supertokens: { requiredSecondaryFactors: ['totp'] },
    });
    expect(await getJson('/public/recipe/user/roles', { userId: 'okta|1' })).toEqual({ status: 'OK', roles: ['admin', 'viewer'] });
    expect((await getJson('/recipe/totp/device/list', { userId: 'okta|1' })).devices).toHaveLength(1);

    // A user who holds devices and codes keeps exactly those.
    const again = await complete([
      { ...record, totpDevices: [{ secretKey: SHA1_BASE32, deviceName: 'other' }], recoveryCodes: ['uvwx-yzab-cd'] },
    ]);
    expect(again.json).toEqual({ status: 'OK', users: [{ status: 'UNCHANGED', userId }] });
    expect((await t.db.pool.query('SELECT count(*)::int AS n FROM recovery_codes')).rows[0].n).toBe(2);

    const unknownRole = await complete([{ ...record, userRoles: [{ role: 'ghost', tenantIds: ['public'] }] }]);
    expect(unknownRole.statusCode).toBe(400);
    expect(unknownRole.json.users[0].errors.join(' ')).toContain('ghost');
  });
});

describe('POST /bulk-import/users/complete with a $lazy$ password', () => {
  it('replaces the pointer with the real hash given, so the user signs in without the old provider', async () => {
    // The source's URL is never called: the password is checked against the real hash.
    const app = await createTestApp({ lazy_migration: { sources: { legacy: sourceEntry('webhook', 'http://127.0.0.1:9') } } });
    try {
      const pending = { recipeId: 'emailpassword', email: 'lee@example.com', passwordHash: '$lazy$legacy', hashingAlgorithm: 'lazy' };
      expect(
        (await call(app.app, 'POST', '/bulk-import/import', { body: { externalUserId: 'old-lee', loginMethods: [pending] } })).statusCode,
      ).toBe(200);
      const lookup = () =>
        call(app.app, 'POST', '/bulk-import/users/lookup', { body: { externalUserIds: ['old-lee'], withMaterial: true } });
      expect((await lookup()).json.material[0].lazyPassword).toBe(true);

      const record = { externalUserId: 'old-lee', loginMethods: [{ ...pending, passwordHash: hash, hashingAlgorithm: 'bcrypt' }] };
      const reply = await call(app.app, 'POST', '/bulk-import/users/complete', { body: { users: [record] } });
      expect(reply.json).toEqual({ status: 'OK', users: [{ status: 'COMPLETED', userId: expect.any(String), added: ['password hash'] }] });
      expect((await lookup()).json.material[0].lazyPassword).toBe(false);
      const signIn = await call(app.app, 'POST', '/recipe/signin', { body: { email: 'lee@example.com', password: 'pw' } });
      expect(signIn.json.status).toBe('OK');
      // A pointer in the record never replaces a real hash.
      const again = await call(app.app, 'POST', '/bulk-import/users/complete', {
        body: { users: [{ ...record, loginMethods: [pending] }] },
      });
      expect(again.json.users[0].status).toBe('UNCHANGED');
    } finally {
      await app.close();
    }
  });
});

describe('POST /bulk-import/users/lookup with withMaterial', () => {
  it('answers per user found what it holds beyond login methods, and nothing extra without the flag', async () => {
    await call(t.app, 'PUT', '/recipe/role', { body: { role: 'admin', permissions: [] } });
    const userId = await importUser({
      externalUserId: 'okta|1',
      userMetadata: { plan: 'free' },
      userRoles: [{ role: 'admin', tenantIds: ['public'] }],
      recoveryCodes: ['abcd-efgh-ij'],
      loginMethods: [password(1)],
    });
    const plain = await call(t.app, 'POST', '/bulk-import/users/lookup', { body: { externalUserIds: ['okta|1'] } });
    expect(Object.keys(plain.json)).toEqual(['status', 'users']);
    const reply = await call(t.app, 'POST', '/bulk-import/users/lookup', {
      body: { externalUserIds: ['okta|1', 'none'], withMaterial: true },
    });
    expect(reply.json.material).toEqual([
      {
        groupId: userId,
        totpDevices: 0,
        recoveryCodes: 1,
        metadataKeys: ['plan'],
        roles: [{ role: 'admin', tenantId: 'public' }],
        lazyPassword: false,
      },
    ]);
  });
});
