import { beforeEach, describe, expect, it } from 'vitest';
import { call, createTestApp, snapshot, useTestApp } from '../helper.js';
import { bcryptHash, emailPasswordUser, passwordlessUser, thirdPartyUser } from './fixtures.js';

const uuid = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
const invalidUsers = 'Data has missing or invalid fields. Please check the users field for more details.';

const t = useTestApp({ bulk_import_worker: false }, { truncateEach: true });

describe('POST /bulk-import/users', () => {
  it('queues every user as NEW with fresh ids and answers them per recipe', async () => {
    const users = [
      emailPasswordUser(1, { userMetadata: { plan: 'pro' } }, { isVerified: true, timeJoinedInMSSinceEpoch: 1500000000000 }),
      thirdPartyUser(2),
      passwordlessUser(3, {}, { email: ' PL3@Example.com ' }),
      { loginMethods: [{ recipeId: 'passwordless', email: 'only-email@example.com' }] },
    ];
    const reply = await call(t.app, 'POST', '/bulk-import/users', { body: { users } });
    expect([reply.statusCode, reply.json]).toEqual([
      200,
      {
        status: 'OK',
        users: [
          {
            userId: 'ext-ep-1',
            loginMethods: [{ recipeId: 'emailpassword', userId: uuid, tenants: ['public'], email: 'user1@example.com' }],
          },
          {
            userId: uuid,
            loginMethods: [
              {
                recipeId: 'thirdparty',
                userId: uuid,
                tenants: ['public'],
                email: 'tp2@example.com',
                thirdpartyId: 'google',
                thirdpartyUserId: 'g-2',
              },
            ],
          },
          {
            userId: uuid,
            loginMethods: [
              { recipeId: 'passwordless', userId: uuid, tenants: ['public'], email: 'pl3@example.com', phoneNumber: '+14155551003' },
            ],
          },
          {
            userId: uuid,
            loginMethods: [
              { recipeId: 'passwordless', userId: uuid, tenants: ['public'], email: 'only-email@example.com', phoneNumber: null },
            ],
          },
        ],
      },
    ]);
    const { rows } = await t.db.pool.query('SELECT id, status, raw_data, error_message, created_at, updated_at FROM bulk_import_users');
    const byId = new Map(rows.map((row) => [row.id, row]));
    const [first, second] = reply.json.users;
    // The row id is the login method's id, which becomes the user's id; without an external id the answer shows it.
    expect(byId.get(second.userId)).toBeDefined();
    expect(byId.get(first.loginMethods[0].userId)).toEqual({
      id: first.loginMethods[0].userId,
      status: 'NEW',
      error_message: null,
      created_at: t.clock.nowMs,
      updated_at: t.clock.nowMs,
      raw_data: {
        id: first.loginMethods[0].userId,
        externalUserId: 'ext-ep-1',
        userMetadata: { plan: 'pro' },
        loginMethods: [
          {
            tenantIds: ['public'],
            isVerified: true,
            isPrimary: false,
            timeJoinedInMSSinceEpoch: 1500000000000,
            recipeId: 'emailpassword',
            superTokensUserId: first.loginMethods[0].userId,
            email: 'user1@example.com',
            passwordHash: bcryptHash,
            hashingAlgorithm: 'BCRYPT',
          },
        ],
      },
    });
    expect(rows).toHaveLength(4);
  });

  it('is app-scoped: another tenant gets 403 once the body is checked, an empty list is OK anyway', async () => {
    const before = await snapshot(t.db);
    const reply = await call(t.app, 'POST', '/tenant1/bulk-import/users', { body: { users: [emailPasswordUser(1)] } });
    expect([reply.statusCode, reply.body.trim()]).toEqual([403, 'Only public tenantId can call this app specific API']);
    expect((await call(t.app, 'POST', '/tenant1/bulk-import/users', { body: { users: [] } })).json).toEqual({ status: 'OK' });
    const otherApp = await call(t.app, 'POST', '/appid-x/bulk-import/users', { body: { users: [emailPasswordUser(1)] } });
    expect(otherApp.statusCode).toBe(400);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('takes bodies larger than the default limit, up to bulk_import_body_limit_bytes', async () => {
    const users = Array.from({ length: 5000 }, (_, n) => emailPasswordUser(n, { userMetadata: { padding: 'p'.repeat(200) } }));
    expect(JSON.stringify({ users }).length).toBeGreaterThan(t.config.body_limit_bytes);
    const reply = await call(t.app, 'POST', '/bulk-import/users', { body: { users } });
    expect(reply.statusCode).toBe(200);
    expect(reply.json.users).toHaveLength(5000);
  });
});

describe('POST /bulk-import/users body limit', () => {
  it('answers 413 past bulk_import_body_limit_bytes and stores nothing', async () => {
    const small = await createTestApp({ bulk_import_body_limit_bytes: 4096 });
    try {
      const before = await snapshot(small.db);
      const users = Array.from({ length: 40 }, (_, n) => emailPasswordUser(n));
      const reply = await call(small.app, 'POST', '/bulk-import/users', { body: { users } });
      expect(reply.statusCode).toBe(413);
      expect(await snapshot(small.db)).toEqual(before);
    } finally {
      await small.close();
    }
  });
});

describe('POST /bulk-import/users?dryRun=true', () => {
  beforeEach(async () => {
    await t.db.pool
      .query(`INSERT INTO users (user_id, recipe_id, time_joined, email, phone_number, third_party_id, third_party_user_id, password_hash) VALUES
      ('u-ep', 'emailpassword', 1, 'taken@example.com', NULL, NULL, NULL, 'h'),
      ('u-pl-email', 'passwordless', 1, 'taken@example.com', NULL, NULL, NULL, NULL),
      ('u-pl-phone', 'passwordless', 1, NULL, '+14155550000', NULL, NULL, NULL),
      ('u-tp', 'thirdparty', 1, 'tp@example.com', NULL, 'google', 'g-taken', NULL)`);
    await t.db.pool.query("INSERT INTO user_id_mappings (user_id, external_user_id) VALUES ('u-ep', 'legacy-taken')");
  });

  it('reports validation errors and import conflicts per user, against the database and inside the request, writing nothing', async () => {
    const before = await snapshot(t.db);
    const users = [
      emailPasswordUser(0, { externalUserId: 'fresh-0' }),
      emailPasswordUser(1, { externalUserId: 'x1' }, { email: 'Taken@example.com' }),
      thirdPartyUser(2, {}, { thirdPartyUserId: 'g-taken' }),
      passwordlessUser(3, {}, { phoneNumber: undefined, email: 'taken@example.com' }),
      passwordlessUser(4, {}, { phoneNumber: '+1 415 555 0000' }),
      emailPasswordUser(5, { externalUserId: 'legacy-taken' }),
      emailPasswordUser(6, { externalUserId: 'x6' }, { email: 'user0@example.com' }),
      // A primary user with one login method imports (AL-11.2): no E019.
      emailPasswordUser(7, { externalUserId: 'x7' }, { isPrimary: true }),
      { loginMethods: [] },
      // Different recipes never conflict (contract §2).
      thirdPartyUser(9, {}, { email: 'taken@example.com' }),
    ];
    const reply = await call(t.app, 'POST', '/bulk-import/users', { query: { dryRun: 'true' }, body: { users } });
    expect([reply.statusCode, reply.json]).toEqual([
      400,
      {
        error: invalidUsers,
        users: [
          { index: 1, errors: ['E003: A user with email taken@example.com already exists in emailpassword loginMethod.'] },
          {
            index: 2,
            errors: ['E005: A user with thirdPartyId google and thirdPartyUserId g-taken already exists in thirdparty loginMethod.'],
          },
          { index: 3, errors: ['E006: A user with email taken@example.com already exists in passwordless loginMethod.'] },
          { index: 4, errors: ['E007: A user with phoneNumber +14155550000 already exists in passwordless loginMethod.'] },
          { index: 5, errors: ['E031: A user with externalId legacy-taken already exists'] },
          { index: 6, errors: ['E003: A user with email user0@example.com already exists in emailpassword loginMethod.'] },
          { index: 8, errors: ['At least one loginMethod is required.'] },
        ],
      },
    ]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('answers OK and writes nothing when every user would import', async () => {
    const before = await snapshot(t.db);
    const reply = await call(t.app, 'POST', '/bulk-import/users?dryRun=TRUE', {
      body: { users: [emailPasswordUser(1), thirdPartyUser(2), passwordlessUser(3)] },
    });
    expect([reply.statusCode, reply.json]).toEqual([200, { status: 'OK' }]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('imports for real with dryRun=false and refuses other values', async () => {
    expect((await call(t.app, 'POST', '/bulk-import/users?dryRun=false', { body: { users: [emailPasswordUser(1)] } })).statusCode).toBe(
      200,
    );
    const before = await snapshot(t.db);
    const reply = await call(t.app, 'POST', '/bulk-import/users?dryRun=yes', { body: { users: [emailPasswordUser(2)] } });
    expect([reply.statusCode, reply.body.trim()]).toEqual([400, "'dryRun' should be either 'true' or 'false'"]);
    expect(await snapshot(t.db)).toEqual(before);
  });
});
