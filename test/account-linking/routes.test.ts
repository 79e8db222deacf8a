import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, createTestApp, expectText, truncateAll, type TestApp } from '../helper.js';
import { insertUser, mapUser } from '../users/fixtures.js';

// The five account-linking routes (AL-5 to AL-9) through the real app, with the database state after each.
describe('account linking routes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  beforeEach(() => truncateAll(t.db));

  const post = (path: string, body: unknown) => call(t.app, 'POST', `/recipe/accountlinking/user/${path}`, { body });
  const get = (path: string, query: Record<string, string>) => call(t.app, 'GET', `/recipe/accountlinking/user/${path}`, { query });
  const makePrimary = (recipeUserId: string) => post('primary', { recipeUserId });
  const link = (recipeUserId: string, primaryUserId: string) => post('link', { recipeUserId, primaryUserId });

  const loginMethod = (id: string, timeJoined: number, recipeId: string, fields: Record<string, unknown>, verified = false) => ({
    tenantIds: ['public'],
    recipeUserId: id,
    verified,
    timeJoined,
    recipeId,
    ...fields,
  });

  async function groups() {
    const { rows } = await t.db.pool.query(
      `SELECT i.user_id, i.group_id, g.is_primary, g.time_joined FROM user_ids i JOIN user_groups g USING (group_id) ORDER BY i.user_id`,
    );
    return rows;
  }
  async function reservations() {
    const { rows } = await t.db.pool.query('SELECT info_type, info_value, group_id FROM primary_account_infos ORDER BY 1, 2');
    return rows;
  }

  it('makes a login method a primary user, then says it already is one', async () => {
    const a = await insertUser(t.db, { userId: 'a', email: 'alice@example.com', timeJoined: 10 });
    expect((await get('primary/check', { recipeUserId: a.userId })).json).toEqual({ status: 'OK', wasAlreadyAPrimaryUser: false });
    const user = {
      id: 'a',
      isPrimaryUser: true,
      tenantIds: ['public'],
      timeJoined: 10,
      emails: ['alice@example.com'],
      phoneNumbers: [],
      thirdParty: [],
      webauthn: { credentialIds: [] },
      loginMethods: [loginMethod('a', 10, 'emailpassword', { email: 'alice@example.com' })],
    };
    expect((await makePrimary('a')).json).toEqual({ status: 'OK', wasAlreadyAPrimaryUser: false, user });
    expect((await makePrimary('a')).json).toEqual({ status: 'OK', wasAlreadyAPrimaryUser: true, user });
    expect((await get('primary/check', { recipeUserId: 'a' })).json).toEqual({ status: 'OK', wasAlreadyAPrimaryUser: true });
    expect(await reservations()).toEqual([{ info_type: 'email', info_value: 'alice@example.com', group_id: 'a' }]);
  });

  it('refuses a primary user for a linked login method and for an email another primary user holds', async () => {
    await insertUser(t.db, { userId: 'a', email: 'alice@example.com', timeJoined: 10 });
    await insertUser(t.db, { userId: 'b', recipeId: 'thirdparty', email: 'alice@example.com', thirdPartyUserId: 'g1', timeJoined: 20 });
    await insertUser(t.db, { userId: 'c', recipeId: 'passwordless', email: 'alice@example.com', timeJoined: 30 });
    await mapUser(t.db, 'a', 'ext-a');
    await makePrimary('a');
    expect((await link('b', 'ext-a')).json.status).toBe('OK');
    const linked = {
      status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR',
      primaryUserId: 'ext-a',
      description: 'This user ID is already linked to another user ID',
    };
    expect((await get('primary/check', { recipeUserId: 'b' })).json).toEqual(linked);
    expect((await makePrimary('b')).json).toEqual(linked);
    const conflict = {
      status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: 'ext-a',
      description: "This user's email is already associated with another user ID",
    };
    expect((await get('primary/check', { recipeUserId: 'c' })).json).toEqual(conflict);
    expect((await makePrimary('c')).json).toEqual(conflict);
    expect((await groups()).find((row) => row.user_id === 'c')).toEqual({
      user_id: 'c',
      group_id: 'c',
      is_primary: false,
      time_joined: 30,
    });
  });

  it('answers 400 for missing fields and unknown ids, changing nothing', async () => {
    await insertUser(t.db, { userId: 'a' });
    const before = await groups();
    expect(expectText(await call(t.app, 'GET', '/recipe/accountlinking/user/primary/check'))).toBe(
      "Field name 'recipeUserId' is missing in GET request",
    );
    expect(expectText(await get('link/check', { recipeUserId: 'a' }))).toBe("Field name 'primaryUserId' is missing in GET request");
    expect(expectText(await post('primary', {}))).toBe("Field name 'recipeUserId' is invalid in JSON input");
    expect(expectText(await post('link', { recipeUserId: 'a' }))).toBe("Field name 'primaryUserId' is invalid in JSON input");
    expect(expectText(await post('unlink', { recipeUserId: 5 }))).toBe("Field name 'recipeUserId' is invalid in JSON input");
    for (const reply of [
      await makePrimary('nobody'),
      await link('a', 'nobody'),
      await link('nobody', 'a'),
      await post('unlink', { recipeUserId: 'x' }),
    ]) {
      expect([reply.statusCode, expectText(reply)]).toEqual([400, 'Unknown user ID provided']);
    }
    expect(await groups()).toEqual(before);
  });

  it('links login methods into one user, idempotently, and refuses what would merge two primary users', async () => {
    await insertUser(t.db, { userId: 'a', email: 'alice@example.com', timeJoined: 20 });
    await insertUser(t.db, { userId: 'b', recipeId: 'thirdparty', email: 'alice@example.com', thirdPartyUserId: 'g1', timeJoined: 10 });
    await insertUser(t.db, { userId: 'c', recipeId: 'passwordless', email: null, phoneNumber: '+14155552671', timeJoined: 30 });
    await insertUser(t.db, { userId: 'd', email: 'dave@example.com', timeJoined: 40 });
    await mapUser(t.db, 'b', 'ext-b');
    expect((await link('b', 'a')).json).toEqual({ status: 'INPUT_USER_IS_NOT_A_PRIMARY_USER' });
    expect((await get('link/check', { recipeUserId: 'a', primaryUserId: 'a' })).json).toEqual({
      status: 'INPUT_USER_IS_NOT_A_PRIMARY_USER',
    });
    await makePrimary('a');
    expect((await get('link/check', { recipeUserId: 'ext-b', primaryUserId: 'a' })).json).toEqual({
      status: 'OK',
      accountsAlreadyLinked: false,
    });
    const user = {
      id: 'a',
      isPrimaryUser: true,
      tenantIds: ['public'],
      timeJoined: 10,
      emails: ['alice@example.com'],
      phoneNumbers: ['+14155552671'],
      thirdParty: [{ id: 'google', userId: 'g1' }],
      webauthn: { credentialIds: [] },
      loginMethods: [
        loginMethod('ext-b', 10, 'thirdparty', { email: 'alice@example.com', thirdParty: { id: 'google', userId: 'g1' } }),
        loginMethod('a', 20, 'emailpassword', { email: 'alice@example.com' }),
        loginMethod('c', 30, 'passwordless', { phoneNumber: '+14155552671' }, true),
      ],
    };
    expect((await link('ext-b', 'a')).json.status).toBe('OK');
    // primaryUserId given as a linked login method's id resolves to its primary user.
    expect((await link('c', 'ext-b')).json).toEqual({ status: 'OK', accountsAlreadyLinked: false, user });
    expect((await link('c', 'a')).json).toEqual({ status: 'OK', accountsAlreadyLinked: true, user });
    expect((await get('link/check', { recipeUserId: 'c', primaryUserId: 'a' })).json).toEqual({
      status: 'OK',
      accountsAlreadyLinked: true,
    });
    expect((await call(t.app, 'GET', '/user/id', { query: { userId: 'c' } })).json).toEqual({ status: 'OK', user });

    await makePrimary('d');
    const elsewhere = {
      status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: 'a',
      description: 'The input recipe user ID is already linked to another user ID',
    };
    expect((await get('link/check', { recipeUserId: 'c', primaryUserId: 'd' })).json).toEqual(elsewhere);
    expect((await link('c', 'd')).json).toEqual({ ...elsewhere, user });
    expect(await groups()).toEqual([
      { user_id: 'a', group_id: 'a', is_primary: true, time_joined: 10 },
      { user_id: 'b', group_id: 'a', is_primary: true, time_joined: 10 },
      { user_id: 'c', group_id: 'a', is_primary: true, time_joined: 10 },
      { user_id: 'd', group_id: 'd', is_primary: true, time_joined: 40 },
    ]);
    expect(await reservations()).toEqual([
      { info_type: 'email', info_value: 'alice@example.com', group_id: 'a' },
      { info_type: 'email', info_value: 'dave@example.com', group_id: 'd' },
      { info_type: 'phone', info_value: '+14155552671', group_id: 'a' },
      { info_type: 'tparty', info_value: 'google::g1', group_id: 'a' },
    ]);
    expect((await call(t.app, 'GET', '/users/count')).json).toEqual({ status: 'OK', count: 2 });
  });

  // Phone numbers and third-party logins are unique per recipe already, so only an email can be shared by two login methods.
  it('refuses to link a login method whose email another primary user holds', async () => {
    await insertUser(t.db, { userId: 'p1', email: 'alice@example.com' });
    await insertUser(t.db, { userId: 'p2', email: 'bob@example.com' });
    await insertUser(t.db, { userId: 'r', recipeId: 'thirdparty', email: 'alice@example.com', thirdPartyUserId: 'g1' });
    await mapUser(t.db, 'p1', 'ext-p1');
    await makePrimary('p1');
    await makePrimary('p2');
    const expected = {
      status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: 'ext-p1',
      description: "This user's email is already associated with another user ID",
    };
    expect((await get('link/check', { recipeUserId: 'r', primaryUserId: 'p2' })).json).toEqual(expected);
    expect((await link('r', 'p2')).json).toEqual(expected);
    expect((await groups()).find((row) => row.user_id === 'r')).toEqual({
      user_id: 'r',
      group_id: 'r',
      is_primary: false,
      time_joined: 1_700_000_000_000,
    });
  });

  it('unlinks: standalone, linked, single primary, and primary with others (its id retained)', async () => {
    await insertUser(t.db, { userId: 'a', email: 'alice@example.com', timeJoined: 10 });
    await insertUser(t.db, { userId: 'b', recipeId: 'thirdparty', email: 'alice@example.com', thirdPartyUserId: 'g1', timeJoined: 20 });
    await insertUser(t.db, { userId: 'c', recipeId: 'passwordless', email: null, phoneNumber: '+14155552671', timeJoined: 30 });
    await mapUser(t.db, 'a', 'ext-a');
    expect((await post('unlink', { recipeUserId: 'a' })).json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: false });
    await makePrimary('a');
    await link('b', 'a');
    await link('c', 'a');

    // Case 2: a linked login method leaves; the primary user's time and reservations follow.
    expect((await post('unlink', { recipeUserId: 'c' })).json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: true });
    expect((await groups()).find((row) => row.user_id === 'c')).toEqual({
      user_id: 'c',
      group_id: 'c',
      is_primary: false,
      time_joined: 30,
    });
    expect((await reservations()).map((row) => row.info_type)).toEqual(['email', 'tparty']);

    // Case 3b: the primary login method goes; its id and mapping keep naming the user.
    expect((await post('unlink', { recipeUserId: 'ext-a' })).json).toEqual({ status: 'OK', wasRecipeUserDeleted: true, wasLinked: true });
    const retained = {
      id: 'ext-a',
      isPrimaryUser: true,
      tenantIds: ['public'],
      timeJoined: 20,
      emails: ['alice@example.com'],
      phoneNumbers: [],
      thirdParty: [{ id: 'google', userId: 'g1' }],
      webauthn: { credentialIds: [] },
      loginMethods: [loginMethod('b', 20, 'thirdparty', { email: 'alice@example.com', thirdParty: { id: 'google', userId: 'g1' } })],
    };
    for (const id of ['a', 'ext-a', 'b'])
      expect((await call(t.app, 'GET', '/user/id', { query: { userId: id } })).json).toEqual({ status: 'OK', user: retained });
    expect((await makePrimary('a')).statusCode).toBe(400);
    const mapping = await call(t.app, 'POST', '/recipe/userid/map', { body: { superTokensUserId: 'c', externalUserId: 'a' } });
    expect([mapping.statusCode, expectText(mapping)]).toEqual([
      400,
      'Cannot create a userId mapping where the externalId is also a SuperTokens userID',
    ]);

    // Case 3a: the primary user's last login method leaves it: standalone again, no reservations.
    await link('c', 'ext-a');
    await post('unlink', { recipeUserId: 'c' });
    const single = await call(t.app, 'POST', '/recipe/accountlinking/user/unlink', { body: { recipeUserId: 'b' } });
    expect(single.json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: true });
    expect(await reservations()).toEqual([]);
    expect((await call(t.app, 'GET', '/users/count')).json).toEqual({ status: 'OK', count: 2 });
  });
});
