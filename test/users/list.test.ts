import { describe, expect, it } from 'vitest';
import { call, snapshot, useTestApp } from '../helper.js';
import { expectedLegacyUser, expectedUser, insertUser, mapUser, type StoredUser } from './fixtures.js';

const token = (text: string) => Buffer.from(text).toString('base64');
const tenantError =
  'AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, public, tenant1)';

describe('GET /users', () => {
  const t = useTestApp({}, { truncateEach: true });

  const list = (query: Record<string, string> = {}, headers: Record<string, string> = {}, url = '/users') =>
    call(t.app, 'GET', url, { query, headers });

  // Ids that sort the same in every collation; several users share a timeJoined to exercise the tie-break.
  async function seed(): Promise<StoredUser[]> {
    const plan: [string, number, 'emailpassword' | 'passwordless' | 'thirdparty'][] = [
      ['u01', 100, 'emailpassword'],
      ['u02', 200, 'thirdparty'],
      ['u03', 200, 'passwordless'],
      ['u04', 200, 'emailpassword'],
      ['u05', 300, 'thirdparty'],
      ['u06', 50, 'emailpassword'],
      ['u07', 300, 'passwordless'],
      ['u08', 400, 'emailpassword'],
    ];
    const users: StoredUser[] = [];
    for (const [userId, timeJoined, recipeId] of plan) {
      users.push(await insertUser(t.db, { userId, timeJoined, recipeId, email: `${userId}@example.com` }));
    }
    return users;
  }

  const byId = (users: StoredUser[], ids: string[]) => ids.map((id) => expectedUser(users.find((user) => user.userId === id)!));
  // Order by timeJoined, ties by user id descending in both directions.
  const ascending = ['u06', 'u01', 'u04', 'u03', 'u02', 'u07', 'u05', 'u08'];
  const descending = ['u08', 'u07', 'u05', 'u04', 'u03', 'u02', 'u01', 'u06'];

  async function pageThrough(query: Record<string, string>): Promise<{ ids: string[]; tokens: string[] }> {
    const ids: string[] = [];
    const tokens: string[] = [];
    let next: string | undefined;
    do {
      const reply = await list({ ...query, ...(next && { paginationToken: next }) });
      expect(reply.statusCode).toBe(200);
      ids.push(...reply.json.users.map((user: { id: string }) => user.id));
      next = reply.json.nextPaginationToken;
      if (next) tokens.push(next);
    } while (next);
    return { ids, tokens };
  }

  it('lists every user oldest first with the default limit and no token on the last page', async () => {
    const users = await seed();
    expect((await list()).json).toEqual({ status: 'OK', users: byId(users, ascending) });
  });

  it('pages ascending with ties by internal id descending; the token names the first user of the next page', async () => {
    const users = await seed();
    const first = await list({ limit: '3' });
    expect(first.json).toEqual({ status: 'OK', users: byId(users, ['u06', 'u01', 'u04']), nextPaginationToken: token('u03;200') });
    const second = await list({ limit: '3', paginationToken: first.json.nextPaginationToken });
    expect(second.json).toEqual({ status: 'OK', users: byId(users, ['u03', 'u02', 'u07']), nextPaginationToken: token('u05;300') });
    const last = await list({ limit: '3', paginationToken: second.json.nextPaginationToken });
    expect(last.json).toEqual({ status: 'OK', users: byId(users, ['u05', 'u08']) });
  });

  it.each([1, 2, 3, 7, 8])('visits every user once in both directions with limit %i', async (limit) => {
    await seed();
    expect((await pageThrough({ limit: String(limit) })).ids).toEqual(ascending);
    expect((await pageThrough({ limit: String(limit), timeJoinedOrder: 'DESC' })).ids).toEqual(descending);
  });

  it('pages newest first', async () => {
    const users = await seed();
    const first = await list({ limit: '4', timeJoinedOrder: 'DESC' });
    expect(first.json).toEqual({ status: 'OK', users: byId(users, ['u08', 'u07', 'u05', 'u04']), nextPaginationToken: token('u03;200') });
  });

  it('shows external ids but keeps the internal id in the token', async () => {
    const users = await seed();
    await mapUser(t.db, 'u03', 'legacy-3');
    const first = await list({ limit: '3' });
    expect(first.json.nextPaginationToken).toBe(token('u03;200'));
    const second = await list({ limit: '1', paginationToken: first.json.nextPaginationToken });
    expect(second.json).toEqual({
      status: 'OK',
      users: [
        expectedUser(
          users.find((user) => user.userId === 'u03')!,
          { externalId: 'legacy-3' },
        ),
      ],
      nextPaginationToken: token('u02;200'),
    });
  });

  it('keeps paging correctly when the user named in the token is removed in between', async () => {
    await seed();
    const first = await list({ limit: '3' });
    await call(t.app, 'POST', '/user/remove', { body: { userId: 'u03' } });
    const rest = await pageThrough({ limit: '3', paginationToken: first.json.nextPaginationToken });
    expect(rest.ids).toEqual(['u02', 'u07', 'u05', 'u08']);
  });

  it('filters by recipe while paging', async () => {
    await seed();
    expect((await pageThrough({ limit: '1', includeRecipeIds: 'emailpassword,passwordless' })).ids).toEqual([
      'u06',
      'u01',
      'u04',
      'u03',
      'u07',
      'u08',
    ]);
    expect((await pageThrough({ limit: '2', includeRecipeIds: 'THIRDPARTY', timeJoinedOrder: 'DESC' })).ids).toEqual(['u05', 'u02']);
    expect((await list({ includeRecipeIds: 'session' })).json).toEqual({ status: 'OK', users: [] });
  });

  it('answers the { recipeId, user } items of cdi < 4.0', async () => {
    const users = await seed();
    const reply = await list({ limit: '2' }, { 'cdi-version': '3.0' });
    const legacy = (id: string) => expectedLegacyUser(users.find((user) => user.userId === id)!);
    expect(reply.json).toEqual({
      status: 'OK',
      users: [
        { recipeId: 'emailpassword', user: legacy('u06') },
        { recipeId: 'emailpassword', user: legacy('u01') },
      ],
      nextPaginationToken: token('u04;200'),
    });
    const old = await list({ limit: '1' }, { 'cdi-version': '2.21' });
    expect(old.json.users).toEqual([{ recipeId: 'emailpassword', user: expectedLegacyUser(users[5], { tenantIds: false }) }]);
  });

  it('accepts a token with an empty user id and a signed time, as the reference does', async () => {
    await seed();
    expect((await list({ paginationToken: token(';250') })).json.users.map((user: { id: string }) => user.id)).toEqual([
      'u07',
      'u05',
      'u08',
    ]);
    expect((await list({ paginationToken: token('zzz;+200'), limit: '2' })).json.users.map((user: { id: string }) => user.id)).toEqual([
      'u04',
      'u03',
    ]);
    expect((await list({ paginationToken: token('u01;-1') })).json.users).toHaveLength(8);
  });

  it.each([
    [{ limit: '0' }, 'limit must a positive integer with min value 1'],
    [{ limit: '-5' }, 'limit must a positive integer with min value 1'],
    [{ limit: '501' }, 'max limit allowed is 500'],
    [{ limit: 'ten' }, "Field name 'limit' must be an int in the GET request"],
    [{ limit: '1.5' }, "Field name 'limit' must be an int in the GET request"],
    [{ timeJoinedOrder: 'asc' }, 'timeJoinedOrder can be either ASC OR DESC'],
    [{ timeJoinedOrder: '' }, 'timeJoinedOrder can be either ASC OR DESC'],
    [{ includeRecipeIds: 'emailpassword,github' }, 'Unknown recipe ID: github'],
    [{ paginationToken: 'not base64!' }, 'invalid pagination token'],
    [{ paginationToken: token('u01') }, 'invalid pagination token'],
    [{ paginationToken: token('u01;100;x') }, 'invalid pagination token'],
    [{ paginationToken: token('u01;abc') }, 'invalid pagination token'],
    [{ paginationToken: token('u01;') }, 'invalid pagination token'],
    [{ paginationToken: token('u01;99999999999999999999') }, 'invalid pagination token'],
    [{ paginationToken: 'dTAxOzEwMA=x' }, 'invalid pagination token'],
    [{ paginationToken: '' }, 'invalid pagination token'],
    [{ limit: '0', timeJoinedOrder: 'up' }, 'timeJoinedOrder can be either ASC OR DESC'],
    [{ limit: '501', paginationToken: 'bad' }, 'max limit allowed is 500'],
  ])('rejects %o with 400', async (query, message) => {
    await seed();
    const before = await snapshot(t.db);
    const reply = await list(query);
    expect([reply.statusCode, reply.body]).toEqual([400, `${message}\n`]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('checks recipe ids before the tenant and the paging parameters after it', async () => {
    expect((await list({ includeRecipeIds: 'x' }, {}, '/tenant1/users')).body).toBe('Unknown recipe ID: x\n');
    expect((await list({ limit: '0' }, {}, '/tenant1/users')).body.trim()).toBe(tenantError);
  });

  describe('dashboard search', () => {
    async function seedSearch() {
      const a = await insertUser(t.db, { userId: 's1', recipeId: 'emailpassword', email: 'alice@acme.com', timeJoined: 1 });
      const b = await insertUser(t.db, {
        userId: 's2',
        recipeId: 'thirdparty',
        email: 'bob@acme.com',
        thirdPartyId: 'google',
        timeJoined: 2,
      });
      const c = await insertUser(t.db, { userId: 's3', recipeId: 'passwordless', email: null, phoneNumber: '+14155552671', timeJoined: 3 });
      const d = await insertUser(t.db, {
        userId: 's4',
        recipeId: 'thirdparty',
        email: 'al_x@other.org',
        thirdPartyId: 'github',
        timeJoined: 4,
      });
      return { a, b, c, d };
    }

    it.each([
      ['an email prefix', { email: 'ali' }, ['s1']],
      ['an email domain prefix, terms OR-ed, trimmed and lower-cased', { email: ' ACME ;;' }, ['s1', 's2']],
      ['several email terms', { email: 'bob;other' }, ['s2', 's4']],
      ['LIKE wildcards taken literally', { email: 'al_' }, ['s4']],
      ['a phone prefix', { phone: '+1415' }, ['s3']],
      ['a provider prefix', { provider: 'goo;git' }, ['s2', 's4']],
      ['email AND provider', { email: 'acme', provider: 'google' }, ['s2']],
      ['email AND phone (no one)', { email: 'acme', phone: '+1' }, []],
      ['empty terms only: no search, normal listing', { email: ' ; ' }, ['s1', 's2', 's3', 's4']],
    ])('matches %s', async (_name, query, ids) => {
      await seedSearch();
      const reply = await list(query);
      expect([reply.statusCode, reply.json.users.map((user: { id: string }) => user.id)]).toEqual([200, ids]);
    });

    it('returns no token, honours the limit and lifts the 500 cap', async () => {
      const { a } = await seedSearch();
      expect((await list({ email: 'a', limit: '1' })).json).toEqual({ status: 'OK', users: [expectedUser(a)] });
      expect(
        (await list({ email: 'acme', limit: '5000', timeJoinedOrder: 'DESC' })).json.users.map((user: { id: string }) => user.id),
      ).toEqual(['s2', 's1']);
    });
  });
});
