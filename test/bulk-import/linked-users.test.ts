import { beforeEach, describe, expect, it } from 'vitest';
import { call, snapshot, truncateAll, useTestApp } from '../helper.js';
import { bcryptHash, bcryptPassword, queueRows } from './fixtures.js';

// AL-11: a user with several login methods is imported as one primary user, through the queue, at once and in the
// dry run alike.
// The worker stays off: each test reads the queue before it imports the queue itself.
const t = useTestApp({ bulk_import_worker: false });
beforeEach(async () => {
  await truncateAll(t.db);
  await t.db.pool.query("INSERT INTO roles (role) VALUES ('admin')");
});

const T = 1_600_000_000_000;
const invalidUsers = 'Data has missing or invalid fields. Please check the users field for more details.';
const conflict = 'E027: there is a conflicting account info';
// E027 names the value and the user holding it (its old id, else its id).
const aliceTaken = `${conflict}: email alice@example.com already belongs to user other`;
const googleTaken = `${conflict}: third-party account google/gh-1 already belongs to user other`;

const password = (email: string, extra: Record<string, unknown> = {}) => ({
  recipeId: 'emailpassword',
  email,
  passwordHash: bcryptHash,
  hashingAlgorithm: 'bcrypt',
  ...extra,
});
const google = (userId: string, email: string, extra: Record<string, unknown> = {}) => ({
  recipeId: 'thirdparty',
  thirdPartyId: 'google',
  thirdPartyUserId: userId,
  email,
  ...extra,
});
const phone = (phoneNumber: string, extra: Record<string, unknown> = {}) => ({ recipeId: 'passwordless', phoneNumber, ...extra });

// The platform user of AL-12.1: password, Google and phone, the password one the oldest.
const alice = () => ({
  externalUserId: 'fb-alice',
  userMetadata: { plan: 'pro' },
  userRoles: [{ role: 'admin', tenantIds: ['public'] }],
  loginMethods: [
    password('Alice@Example.com', { isVerified: true, timeJoinedInMSSinceEpoch: T }),
    google('106344558822', 'alice@example.com', { isVerified: true, timeJoinedInMSSinceEpoch: T + 1000 }),
    phone('+1 415 555 2671', { timeJoinedInMSSinceEpoch: T + 2000 }),
  ],
});

const lm = (recipeUserId: string, timeJoined: number, recipeId: string, fields: Record<string, unknown>, verified: boolean) => ({
  tenantIds: ['public'],
  recipeUserId,
  verified,
  timeJoined,
  recipeId,
  ...fields,
});

function aliceOnTheWire(ids: { tp: string; pl: string }) {
  return {
    id: 'fb-alice',
    isPrimaryUser: true,
    tenantIds: ['public'],
    timeJoined: T,
    emails: ['alice@example.com'],
    phoneNumbers: ['+14155552671'],
    thirdParty: [{ id: 'google', userId: '106344558822' }],
    webauthn: { credentialIds: [] },
    loginMethods: [
      lm('fb-alice', T, 'emailpassword', { email: 'alice@example.com' }, true),
      lm(ids.tp, T + 1000, 'thirdparty', { email: 'alice@example.com', thirdParty: { id: 'google', userId: '106344558822' } }, true),
      lm(ids.pl, T + 2000, 'passwordless', { phoneNumber: '+14155552671' }, true),
    ],
  };
}

// Groups, reservations and what hangs off the ids, by login method.
async function linkingState() {
  const db = t.db.pool;
  const groups = await db.query(
    `SELECT u.recipe_id, i.user_id, i.group_id, g.is_primary, g.time_joined
       FROM users u JOIN user_ids i USING (user_id) JOIN user_groups g USING (group_id) ORDER BY u.time_joined, u.user_id`,
  );
  const reservations = await db.query('SELECT info_type, info_value, group_id FROM primary_account_infos ORDER BY 1, 2');
  const mappings = await db.query('SELECT user_id, external_user_id FROM user_id_mappings ORDER BY 1');
  const metadata = await db.query('SELECT user_id, metadata FROM user_metadata ORDER BY 1');
  const roles = await db.query('SELECT user_id, role FROM user_roles ORDER BY 1');
  const verified = await db.query('SELECT user_id, email FROM email_verifications ORDER BY 1');
  return {
    groups: groups.rows,
    reservations: reservations.rows,
    mappings: mappings.rows,
    metadata: metadata.rows,
    roles: roles.rows,
    verified: verified.rows.sort((a, b) => (a.user_id < b.user_id ? -1 : 1)),
  };
}

function expectedAliceState(ids: { ep: string; tp: string; pl: string }) {
  return {
    groups: [
      { recipe_id: 'emailpassword', user_id: ids.ep, group_id: ids.ep, is_primary: true, time_joined: T },
      { recipe_id: 'thirdparty', user_id: ids.tp, group_id: ids.ep, is_primary: true, time_joined: T },
      { recipe_id: 'passwordless', user_id: ids.pl, group_id: ids.ep, is_primary: true, time_joined: T },
    ],
    reservations: [
      { info_type: 'email', info_value: 'alice@example.com', group_id: ids.ep },
      { info_type: 'phone', info_value: '+14155552671', group_id: ids.ep },
      { info_type: 'tparty', info_value: 'google::106344558822', group_id: ids.ep },
    ],
    mappings: [{ user_id: ids.ep, external_user_id: 'fb-alice' }],
    // Under the id the app knows the user by (contract M-2.1).
    metadata: [{ user_id: 'fb-alice', metadata: { plan: 'pro' } }],
    roles: [{ user_id: 'fb-alice', role: 'admin' }],
    verified: [
      { user_id: ids.ep, email: 'alice@example.com' },
      { user_id: ids.tp, email: 'alice@example.com' },
    ].sort((a, b) => (a.user_id < b.user_id ? -1 : 1)),
  };
}

// Every route that reads the user, and a sign-in by each login method, answer the same person.
async function expectAliceEverywhere(ids: { ep: string; tp: string; pl: string }) {
  const user = aliceOnTheWire(ids);
  for (const userId of ['fb-alice', ids.ep, ids.tp, ids.pl]) {
    expect((await call(t.app, 'GET', '/user/id', { query: { userId } })).json, userId).toEqual({ status: 'OK', user });
  }
  const byEmail = await call(t.app, 'GET', '/users/by-accountinfo', {
    query: { email: 'alice@example.com', doUnionOfAccountInfo: 'true' },
  });
  expect(byEmail.json).toEqual({ status: 'OK', users: [user] });
  expect((await call(t.app, 'GET', '/users/count')).json).toEqual({ status: 'OK', count: 1 });

  const signIn = await call(t.app, 'POST', '/recipe/signin', { body: { email: 'alice@example.com', password: bcryptPassword } });
  expect(signIn.json).toEqual({ status: 'OK', user, recipeUserId: 'fb-alice' });
  const signInUp = await call(t.app, 'POST', '/recipe/signinup', {
    body: { thirdPartyId: 'google', thirdPartyUserId: '106344558822', email: { id: 'alice@example.com', isVerified: true } },
  });
  expect(signInUp.json).toEqual({ status: 'OK', createdNewUser: false, user, recipeUserId: ids.tp });
  const code = await call(t.app, 'POST', '/recipe/signinup/code', { body: { phoneNumber: '+14155552671' } });
  const consume = await call(t.app, 'POST', '/recipe/signinup/code/consume', {
    body: { preAuthSessionId: code.json.preAuthSessionId, linkCode: code.json.linkCode },
  });
  expect([consume.json.status, consume.json.createdNewUser, consume.json.user, consume.json.recipeUserId]).toEqual([
    'OK',
    false,
    user,
    ids.pl,
  ]);
}

describe('bulk import of a user with several login methods', () => {
  it('through the queue: one primary user with three login methods, answered per login method', async () => {
    const reply = await call(t.app, 'POST', '/bulk-import/users', { body: { users: [alice()] } });
    expect(reply.statusCode).toBe(200);
    const [ep, tp, pl] = reply.json.users[0].loginMethods.map((method: { userId: string }) => method.userId);
    expect(reply.json).toEqual({
      status: 'OK',
      users: [
        {
          userId: 'fb-alice',
          loginMethods: [
            { recipeId: 'emailpassword', userId: ep, tenants: ['public'], email: 'alice@example.com' },
            {
              recipeId: 'thirdparty',
              userId: tp,
              tenants: ['public'],
              email: 'alice@example.com',
              thirdpartyId: 'google',
              thirdpartyUserId: '106344558822',
            },
            { recipeId: 'passwordless', userId: pl, tenants: ['public'], email: null, phoneNumber: '+14155552671' },
          ],
        },
      ],
    });
    // The queue row is named by the primary login method's id.
    expect((await queueRows(t.db)).map((row) => row.id)).toEqual([ep]);
    await t.app.services.bulkImportWorker.processUntilEmpty();
    expect(await queueRows(t.db)).toEqual([]);
    expect(await linkingState()).toEqual(expectedAliceState({ ep, tp, pl }));
    await expectAliceEverywhere({ ep, tp, pl });
  });

  it('through /bulk-import/import: answers the whole user and leaves the same state', async () => {
    const reply = await call(t.app, 'POST', '/bulk-import/import', { body: alice() });
    expect(reply.statusCode).toBe(200);
    const [, tp, pl] = reply.json.user.loginMethods.map((method: { recipeUserId: string }) => method.recipeUserId);
    expect(reply.json).toEqual({ status: 'OK', user: aliceOnTheWire({ tp, pl }) });
    const { rows } = await t.db.pool.query("SELECT user_id FROM users WHERE recipe_id = 'emailpassword'");
    const ids = { ep: rows[0].user_id, tp, pl };
    expect(await linkingState()).toEqual(expectedAliceState(ids));
    await expectAliceEverywhere(ids);
  });

  it('with importNow: the same user', async () => {
    const reply = await call(t.app, 'POST', '/bulk-import/users', { body: { users: [alice()] }, query: { importNow: 'true' } });
    const [ep, tp, pl] = reply.json.users[0].loginMethods.map((method: { userId: string }) => method.userId);
    expect(await linkingState()).toEqual(expectedAliceState({ ep, tp, pl }));
    expect((await call(t.app, 'GET', '/user/id', { query: { userId: 'fb-alice' } })).json.user).toEqual(aliceOnTheWire({ tp, pl }));
  });

  it.each([
    [
      'isPrimary marks the primary login method, even a younger one',
      [
        password('p1@example.com', { timeJoinedInMSSinceEpoch: T + 5 }),
        google('g1', 'p1@example.com', { isPrimary: true, timeJoinedInMSSinceEpoch: T + 9 }),
        phone('+14155550001', { timeJoinedInMSSinceEpoch: T }),
      ],
      1,
    ],
    [
      'without isPrimary, the oldest',
      [
        password('p1@example.com', { timeJoinedInMSSinceEpoch: T + 5 }),
        google('g1', 'p1@example.com', { timeJoinedInMSSinceEpoch: T + 9 }),
        phone('+14155550001', { timeJoinedInMSSinceEpoch: T }),
      ],
      2,
    ],
    [
      'without isPrimary and the same times, the first given',
      [google('g1', 'p1@example.com', { timeJoinedInMSSinceEpoch: T }), password('p1@example.com', { timeJoinedInMSSinceEpoch: T })],
      0,
    ],
  ])('%s (AL-11.2 step 1)', async (_description, loginMethods, primaryIndex) => {
    const reply = await call(t.app, 'POST', '/bulk-import/users', { body: { users: [{ externalUserId: 'old-1', loginMethods }] } });
    const ids: string[] = reply.json.users[0].loginMethods.map((method: { userId: string }) => method.userId);
    const primary = ids[primaryIndex];
    expect((await queueRows(t.db)).map((row) => row.id)).toEqual([primary]);
    await t.app.services.bulkImportWorker.processUntilEmpty();
    const user = (await call(t.app, 'GET', '/user/id', { query: { userId: 'old-1' } })).json.user;
    expect([user.id, user.isPrimaryUser, user.timeJoined, user.loginMethods.length]).toEqual(['old-1', true, T, loginMethods.length]);
    const shown = user.loginMethods.map((method: { recipeUserId: string }) => method.recipeUserId);
    expect(shown).toContain('old-1');
    expect(new Set(shown)).toEqual(new Set(ids.map((id) => (id === primary ? 'old-1' : id))));
    const { rows } = await t.db.pool.query('SELECT DISTINCT group_id FROM user_ids');
    expect(rows).toEqual([{ group_id: primary }]);
  });

  it('a single login method marked isPrimary becomes a primary user with one login method', async () => {
    const reply = await call(t.app, 'POST', '/bulk-import/import', {
      body: { loginMethods: [password('solo@example.com', { isPrimary: true })] },
    });
    expect([reply.statusCode, reply.json.user.isPrimaryUser, reply.json.user.loginMethods.length]).toEqual([200, true, 1]);
    expect((await linkingState()).reservations).toEqual([
      { info_type: 'email', info_value: 'solo@example.com', group_id: reply.json.user.id },
    ]);
  });
});

describe('conflicts of users with several login methods', () => {
  // An existing primary user holding alice's email, and a standalone one holding her phone (no conflict: AL-2.2).
  async function existingUsers() {
    const primary = await call(t.app, 'POST', '/bulk-import/import', {
      body: { externalUserId: 'other', loginMethods: [google('gh-1', 'alice@example.com', { isPrimary: true })] },
    });
    expect(primary.statusCode).toBe(200);
    const standalone = await call(t.app, 'POST', '/bulk-import/import', { body: { loginMethods: [phone('+1 415 555 2671')] } });
    expect(standalone.statusCode).toBe(200);
  }
  // The standalone phone user blocks alice's phone login method at recipe level; alice without it.
  const aliceWithoutPhone = () => ({ ...alice(), loginMethods: alice().loginMethods.slice(0, 2) });

  it('E027 against an existing primary user: nothing of the user is written, through /bulk-import/import', async () => {
    await existingUsers();
    const before = await snapshot(t.db);
    const reply = await call(t.app, 'POST', '/bulk-import/import', { body: alice() });
    // E027 is checked before the recipe codes, so it wins over the E007 of the phone login method.
    expect([reply.statusCode, reply.json]).toEqual([400, { errors: [aliceTaken] }]);
    const alone = await call(t.app, 'POST', '/bulk-import/import', { body: aliceWithoutPhone() });
    expect([alone.statusCode, alone.json]).toEqual([400, { errors: [aliceTaken] }]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('E027 through the queue and the dry run, and the standalone exemption', async () => {
    await existingUsers();
    const users = [
      aliceWithoutPhone(),
      // Only a phone number another primary user does not hold, and an email a standalone user holds: imports.
      { externalUserId: 'bob', loginMethods: [password('bob@example.com'), phone('+14155550002')] },
      // A standalone user may share a primary user's email (AL-2.2 rule 2).
      { loginMethods: [password('alice@example.com', { timeJoinedInMSSinceEpoch: T })] },
      // The third-party login of the existing primary user, in a new primary user.
      { externalUserId: 'carol', loginMethods: [password('carol@example.com'), google('gh-1', 'carol@example.com')] },
    ];
    users[3].loginMethods[1] = { ...users[3].loginMethods[1], thirdPartyId: 'google' };
    const before = await snapshot(t.db);
    const dry = await call(t.app, 'POST', '/bulk-import/users', { body: { users }, query: { dryRun: 'true' } });
    expect([dry.statusCode, dry.json]).toEqual([
      400,
      {
        error: invalidUsers,
        users: [
          { index: 0, errors: [aliceTaken] },
          { index: 3, errors: [googleTaken] },
        ],
      },
    ]);
    expect(await snapshot(t.db)).toEqual(before);

    const queued = await call(t.app, 'POST', '/bulk-import/users', { body: { users } });
    await t.app.services.bulkImportWorker.processUntilEmpty();
    const rowId = (n: number) => queued.json.users[n].loginMethods[0].userId;
    const failed = (await queueRows(t.db)).map((row) => [row.id, row.status, row.error_message]);
    expect(new Set(failed)).toEqual(
      new Set([
        [rowId(0), 'FAILED', aliceTaken],
        [rowId(3), 'FAILED', googleTaken],
      ]),
    );
    const { rows } = await t.db.pool.query('SELECT user_id FROM users WHERE user_id = ANY($1::text[])', [
      [...users[0].loginMethods.keys()].map((i) => queued.json.users[0].loginMethods[i].userId),
    ]);
    expect(rows).toEqual([]);
    const bob = (await call(t.app, 'GET', '/user/id', { query: { userId: 'bob' } })).json.user;
    expect([bob.isPrimaryUser, bob.loginMethods.length]).toEqual([true, 2]);
    expect((await call(t.app, 'GET', '/users/count')).json.count).toBe(4);
  });

  it('two users of one batch with one email across primaries: the first keeps it, the second fails whole', async () => {
    const users = [
      { externalUserId: 'a', loginMethods: [password('a@example.com'), google('g-a', 'shared@example.com')] },
      { externalUserId: 'b', loginMethods: [password('b@example.com'), phone('+14155550003', { email: 'shared@example.com' })] },
      // Standalone, so no reservation: it imports next to both.
      { externalUserId: 'c', loginMethods: [google('g-c', 'shared@example.com')] },
    ];
    const dry = await call(t.app, 'POST', '/bulk-import/users', { body: { users }, query: { dryRun: 'true' } });
    const taken = `${conflict}: email shared@example.com already belongs to another user of this request`;
    expect([dry.statusCode, dry.json]).toEqual([400, { error: invalidUsers, users: [{ index: 1, errors: [taken] }] }]);

    const queued = await call(t.app, 'POST', '/bulk-import/users', { body: { users } });
    await t.app.services.bulkImportWorker.processUntilEmpty();
    const rows = await queueRows(t.db);
    // Each queue row is named by its user's primary (here: first) login method.
    const rowIds = queued.json.users.map((user: { loginMethods: { userId: string }[] }) => user.loginMethods[0].userId);
    // Batch order decides which of the two primaries keeps the email, as for any duplicate in one batch.
    expect(rows.map((row) => [row.status, row.error_message])).toEqual([
      ['FAILED', expect.stringMatching(/^E027: there is a conflicting account info: email shared@example\.com already belongs to /)],
    ]);
    const failedIndex = rowIds.indexOf(rows[0].id);
    expect([0, 1]).toContain(failedIndex);
    const [winner, loser] = failedIndex === 0 ? ['b', 'a'] : ['a', 'b'];
    expect((await call(t.app, 'GET', '/user/id', { query: { userId: winner } })).json.user.loginMethods).toHaveLength(2);
    expect((await call(t.app, 'GET', '/user/id', { query: { userId: loser } })).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect((await call(t.app, 'GET', '/users/count')).json.count).toBe(2);
    const { rows: reserved } = await t.db.pool.query(
      "SELECT count(*)::int AS n FROM primary_account_infos WHERE info_value = 'shared@example.com'",
    );
    expect(reserved).toEqual([{ n: 1 }]);
  });

  it('two login methods of one user with one recipe key fail it with the recipe code, writing nothing', async () => {
    const before = await snapshot(t.db);
    const reply = await call(t.app, 'POST', '/bulk-import/import', {
      body: { loginMethods: [password('twice@example.com'), google('g-t', 'twice@example.com'), password('Twice@example.com')] },
    });
    expect([reply.statusCode, reply.json]).toEqual([
      400,
      { errors: ['E003: A user with email twice@example.com already exists in emailpassword loginMethod.'] },
    ]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('a recipe conflict of one login method leaves none of the others, nor the mapping', async () => {
    await call(t.app, 'POST', '/bulk-import/import', { body: { loginMethods: [google('g-taken', 'x@example.com')] } });
    const before = await snapshot(t.db);
    const users = [{ externalUserId: 'dora', loginMethods: [password('dora@example.com'), google('g-taken', 'dora@example.com')] }];
    await call(t.app, 'POST', '/bulk-import/users', { body: { users } });
    await t.app.services.bulkImportWorker.processUntilEmpty();
    const { bulk_import_users: queue, ...after } = await snapshot(t.db);
    const { bulk_import_users: _, ...expected } = before;
    expect(after).toEqual(expected);
    expect(queue.map((row) => (row as { error_message: string }).error_message)).toEqual([
      'E005: A user with thirdPartyId google and thirdPartyUserId g-taken already exists in thirdparty loginMethod.',
    ]);
  });
});

describe('a value another primary user takes after the conflict check', () => {
  it('fails the user with E027 from the reservation key, and its batch-mates are imported', async () => {
    await call(t.app, 'POST', '/bulk-import/import', {
      body: { externalUserId: 'p', loginMethods: [password('p@example.com', { isPrimary: true })] },
    });
    const { rows: primary } = await t.db.pool.query("SELECT user_id FROM users WHERE email = 'p@example.com'");
    // Stands in for a concurrent link that commits between the check and the insert: the reservation appears then.
    await t.db.pool.query(`CREATE FUNCTION take_reservation() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.email = 'late@example.com' THEN
          INSERT INTO primary_account_infos (tenant_id, info_type, info_value, group_id)
            VALUES ('public', 'email', 'late@example.com', '${primary[0].user_id}') ON CONFLICT DO NOTHING;
        END IF;
        RETURN NEW;
      END $$`);
    await t.db.pool.query('CREATE TRIGGER take_reservation BEFORE INSERT ON users FOR EACH ROW EXECUTE FUNCTION take_reservation()');
    try {
      const users = [
        { externalUserId: 'late', loginMethods: [password('late@example.com'), phone('+14155550004')] },
        { externalUserId: 'mate', loginMethods: [password('mate@example.com'), phone('+14155550005')] },
      ];
      const queued = await call(t.app, 'POST', '/bulk-import/users', { body: { users } });
      await t.app.services.bulkImportWorker.processUntilEmpty();
      expect((await queueRows(t.db)).map((row) => [row.id, row.status, row.error_message])).toEqual([
        [
          queued.json.users[0].loginMethods[0].userId,
          'FAILED',
          `${conflict}: one of email late@example.com, phone number +14155550004 became another primary user's while this user was imported`,
        ],
      ]);
      expect((await call(t.app, 'GET', '/user/id', { query: { userId: 'late' } })).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
      expect((await call(t.app, 'GET', '/user/id', { query: { userId: 'mate' } })).json.user.loginMethods).toHaveLength(2);
    } finally {
      await t.db.pool.query('DROP TRIGGER take_reservation ON users');
      await t.db.pool.query('DROP FUNCTION take_reservation()');
    }
  });
});
