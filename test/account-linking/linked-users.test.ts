import { beforeEach, describe, expect, it } from 'vitest';
import { call, truncateAll, useTestApp } from '../helper.js';
import { mapUser } from '../users/fixtures.js';

// How every other route sees a user with several login methods (AL-3, AL-10): sign-in answers, old cdi shapes,
// mappings per login method, listing, counting, paging and removal, with the database state after.
describe('linked users across the other routes', () => {
  const t = useTestApp();
  beforeEach(() => truncateAll(t.db));

  const post = (url: string, body: unknown, cdi = '5.4') => call(t.app, 'POST', url, { body, headers: { 'cdi-version': cdi } });
  const get = (url: string, query: Record<string, string>, cdi = '5.4') =>
    call(t.app, 'GET', url, { query, headers: { 'cdi-version': cdi } });

  async function signUpByProvider(thirdPartyUserId: string, email: string, timeJoinedAt?: number) {
    if (timeJoinedAt !== undefined) t.clock.nowMs = timeJoinedAt;
    const reply = await post('/recipe/signinup', { thirdPartyId: 'google', thirdPartyUserId, email: { id: email } });
    return reply.json.user.id as string;
  }
  async function signInByPhone(phoneNumber: string, cdi = '5.4') {
    const code = await post('/recipe/signinup/code', { phoneNumber });
    const { preAuthSessionId, linkCode } = code.json;
    return (await post('/recipe/signinup/code/consume', { preAuthSessionId, linkCode }, cdi)).json;
  }
  async function linkAll(primary: string, ...others: string[]) {
    expect((await post('/recipe/accountlinking/user/primary', { recipeUserId: primary })).json.status).toBe('OK');
    for (const other of others) {
      expect((await post('/recipe/accountlinking/user/link', { recipeUserId: other, primaryUserId: primary })).json.status).toBe('OK');
    }
  }
  async function metadataIds() {
    const { rows } = await t.db.pool.query<{ user_id: string }>('SELECT user_id FROM user_metadata ORDER BY user_id');
    return rows.map((row) => row.user_id);
  }

  /** A password user (at 1000), a Google user (at 2000) and a phone user (at 3000), linked to the password one. */
  async function threeMethodUser() {
    t.clock.nowMs = 1000;
    const password = (await post('/recipe/signup', { email: 'alice@example.com', password: 'alice-pw' })).json.user.id as string;
    const google = await signUpByProvider('g-1', 'alice@example.com', 2000);
    t.clock.nowMs = 3000;
    const phone = (await signInByPhone('+14155552671')).user.id as string;
    await linkAll(password, google, phone);
    return { password, google, phone };
  }

  it('answers each sign-in with the whole user and the login method used, mapped ids shown per login method', async () => {
    const { password, google, phone } = await threeMethodUser();
    await mapUser(t.db, password, 'old-alice');
    await mapUser(t.db, phone, 'old-phone');

    const byPassword = await post('/recipe/signin', { email: 'alice@example.com', password: 'alice-pw' });
    expect(byPassword.json).toMatchObject({ status: 'OK', recipeUserId: 'old-alice', user: { id: 'old-alice', isPrimaryUser: true } });
    expect(byPassword.json.user.loginMethods.map((method: { recipeUserId: string }) => method.recipeUserId)).toEqual([
      'old-alice',
      google,
      'old-phone',
    ]);
    expect(byPassword.json.user).toMatchObject({
      timeJoined: 1000,
      emails: ['alice@example.com'],
      phoneNumbers: ['+14155552671'],
      thirdParty: [{ id: 'google', userId: 'g-1' }],
    });

    const byGoogle = await post('/recipe/signinup', {
      thirdPartyId: 'google',
      thirdPartyUserId: 'g-1',
      email: { id: 'alice@example.com' },
    });
    expect(byGoogle.json).toMatchObject({ status: 'OK', createdNewUser: false, recipeUserId: google, user: { id: 'old-alice' } });
    expect(byGoogle.json.user).toEqual(byPassword.json.user);

    const byPhone = await signInByPhone('+14155552671');
    expect(byPhone).toMatchObject({ status: 'OK', createdNewUser: false, recipeUserId: 'old-phone', user: { id: 'old-alice' } });
    expect(byPhone.user).toEqual(byPassword.json.user);

    // A mapping stays with its login method: it is not the user's, nor inherited by the others.
    expect((await get('/recipe/userid/map', { userId: google, userIdType: 'SUPERTOKENS' })).json).toEqual({
      status: 'UNKNOWN_MAPPING_ERROR',
    });
  });

  it('renders a linked user at cdi < 4.0 from its oldest login method, whichever method signed in', async () => {
    const { password } = await threeMethodUser();
    const byPhone = await signInByPhone('+14155552671', '3.0');
    expect(byPhone).toMatchObject({ status: 'OK', createdNewUser: false });
    expect(byPhone.user).toEqual({ id: password, timeJoined: 1000, tenantIds: ['public'], email: 'alice@example.com' });

    const listed = await get('/users', {}, '3.0');
    expect(listed.json).toEqual({
      status: 'OK',
      users: [{ recipeId: 'emailpassword', user: { id: password, timeJoined: 1000, tenantIds: ['public'], email: 'alice@example.com' } }],
    });
  });

  it('lists, counts and finds users, not login methods, and pages stay whole across link and unlink', async () => {
    const { password, google, phone } = await threeMethodUser();
    const others: string[] = [];
    for (let i = 0; i < 4; i++) others.push(await signUpByProvider(`other-${i}`, `other${i}@example.com`, 1500 + i * 1000));

    expect((await get('/users/count', {})).json).toEqual({ status: 'OK', count: 5 });
    expect((await get('/users/count', { includeRecipeIds: 'passwordless' })).json).toEqual({ status: 'OK', count: 1 });

    const walk = async () => {
      const ids: string[] = [];
      let token: string | undefined;
      do {
        const page = await get('/users', { limit: '2', ...(token && { paginationToken: token }) });
        expect(page.statusCode).toBe(200);
        ids.push(...page.json.users.map((user: { id: string }) => user.id));
        token = page.json.nextPaginationToken;
      } while (token !== undefined);
      return ids;
    };
    // Ordered by each user's earliest login method; the linked user appears once.
    expect(await walk()).toEqual([password, others[0], others[1], others[2], others[3]]);

    // Unlinking the oldest-but-one method makes it a user of its own at its own time; the linked user keeps 1000.
    expect((await post('/recipe/accountlinking/user/unlink', { recipeUserId: google })).json.status).toBe('OK');
    expect(await walk()).toEqual([password, others[0], google, others[1], others[2], others[3]]);
    expect((await get('/users/count', {})).json).toEqual({ status: 'OK', count: 6 });

    // Removing the primary login method alone keeps the user under its retained id, now joined at 3000.
    expect((await post('/user/remove', { userId: password, removeAllLinkedAccounts: false })).json).toEqual({ status: 'OK' });
    expect(await walk()).toEqual([others[0], google, others[1], password, others[2], others[3]]);
    expect((await get('/user/id', { userId: password })).json.user).toMatchObject({
      id: password,
      timeJoined: 3000,
      loginMethods: [{ recipeUserId: phone }],
    });

    const byPhone = await get('/users/by-accountinfo', { phoneNumber: '+14155552671', doUnionOfAccountInfo: 'false' });
    expect(byPhone.json.users.map((user: { id: string }) => user.id)).toEqual([password]);
    const both = await get('/users/by-accountinfo', {
      phoneNumber: '+14155552671',
      email: 'alice@example.com',
      doUnionOfAccountInfo: 'false',
    });
    expect(both.json.users).toEqual([]);
  });

  it('removes per AL-10.8: a linked method with its own data, the primary keeping its id and data, the last clearing all', async () => {
    const { password: r2, google: r1, phone: r3 } = await threeMethodUser();
    await mapUser(t.db, r1, 'e1');
    await mapUser(t.db, r2, 'e2');
    await mapUser(t.db, r3, 'e3');
    // Metadata hangs off the ids that name a user (user_ids), the retained group id included.
    for (const userId of [r1, r2, r3]) {
      await t.db.pool.query('INSERT INTO user_metadata (user_id, metadata) VALUES ($1, $2)', [userId, { who: userId }]);
    }

    expect((await post('/user/remove', { userId: 'e1', removeAllLinkedAccounts: false })).json).toEqual({ status: 'OK' });
    expect(await metadataIds()).toEqual([r2, r3].sort());
    expect((await get('/recipe/userid/map', { userId: 'e1', userIdType: 'EXTERNAL' })).json.status).toBe('UNKNOWN_MAPPING_ERROR');

    expect((await post('/user/remove', { userId: 'e2', removeAllLinkedAccounts: false })).json).toEqual({ status: 'OK' });
    expect(await metadataIds()).toEqual([r2, r3].sort());
    expect((await get('/recipe/userid/map', { userId: 'e2', userIdType: 'EXTERNAL' })).json).toMatchObject({
      status: 'OK',
      superTokensUserId: r2,
    });
    const kept = (await get('/user/id', { userId: 'e3' })).json.user;
    expect(kept).toMatchObject({ id: 'e2', isPrimaryUser: true, loginMethods: [{ recipeUserId: 'e3' }] });
    expect(kept.loginMethods).toHaveLength(1);

    expect((await post('/user/remove', { userId: 'e3', removeAllLinkedAccounts: false })).json).toEqual({ status: 'OK' });
    expect(await metadataIds()).toEqual([]);
    expect((await get('/user/id', { userId: 'e2' })).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    const { rows } = await t.db.pool.query('SELECT count(*)::int AS n FROM user_groups');
    expect(rows[0].n).toBe(0);
  });

  it('removes every login method of the user by default, whichever id is given', async () => {
    const { google } = await threeMethodUser();
    expect((await post('/user/remove', { userId: google })).json).toEqual({ status: 'OK' });
    expect((await get('/users/count', {})).json).toEqual({ status: 'OK', count: 0 });
    const { rows } = await t.db.pool.query(
      `SELECT (SELECT count(*) FROM users)::int AS users, (SELECT count(*) FROM user_groups)::int AS groups,
              (SELECT count(*) FROM primary_account_infos)::int AS reservations`,
    );
    expect(rows[0]).toEqual({ users: 0, groups: 0, reservations: 0 });
  });
});
