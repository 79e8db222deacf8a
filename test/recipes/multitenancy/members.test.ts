import { describe, expect, it } from 'vitest';
import { call, expectText, useTestApp } from '../../helper.js';

// Users in tenants (contract-multitenancy T-3, T-1.1 M7/M8, T-6 items 3 and 4, T-7 row 20).
type App = Parameters<typeof call>[0];
const createTenant = (app: App, tenantId: string) =>
  call(app, 'PUT', '/recipe/multitenancy/tenant/v2', { body: { tenantId, firstFactors: ['emailpassword'] } });
const signUp = async (app: App, tenant: string, email: string, password: string) => {
  const reply = await call(app, 'POST', `/${tenant}/recipe/signup`, { body: { email, password } });
  expect(reply.json.status).toBe('OK');
  return reply.json.user.id as string;
};
const signIn = (app: App, tenant: string, email: string, password: string) =>
  call(app, 'POST', `/${tenant}/recipe/signin`, { body: { email, password } });
const associate = (app: App, tenant: string, recipeUserId: string) =>
  call(app, 'POST', `/${tenant}/recipe/multitenancy/tenant/user`, { body: { recipeUserId } });
const disassociate = (app: App, tenant: string, recipeUserId: string) =>
  call(app, 'POST', `/${tenant}/recipe/multitenancy/tenant/user/remove`, { body: { recipeUserId } });
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));

describe('users per tenant', () => {
  const t = useTestApp({}, { truncateEach: true });

  it('keeps one email in two tenants as two users, each password only in its tenant', async () => {
    await createTenant(t.app, 'acme');
    await createTenant(t.app, 'globex');
    const inAcme = await signUp(t.app, 'acme', 'ann@x.com', 'acme-password1');
    const inGlobex = await signUp(t.app, 'globex', 'ann@x.com', 'globex-password1');
    expect(inAcme).not.toBe(inGlobex);
    expect((await signIn(t.app, 'acme', 'ann@x.com', 'acme-password1')).json.user.id).toBe(inAcme);
    expect((await signIn(t.app, 'acme', 'ann@x.com', 'globex-password1')).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect((await signIn(t.app, 'globex', 'ann@x.com', 'globex-password1')).json.user.id).toBe(inGlobex);
    expect((await signIn(t.app, 'public', 'ann@x.com', 'acme-password1')).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    const acmeUsers = (await call(t.app, 'GET', '/acme/users')).json.users;
    expect(acmeUsers.map((u: { id: string; tenantIds: string[] }) => [u.id, u.tenantIds])).toEqual([[inAcme, ['acme']]]);
    expect((await call(t.app, 'GET', '/globex/users/count')).json).toEqual({ status: 'OK', count: 1 });
    expect((await call(t.app, 'GET', '/users/count')).json).toEqual({ status: 'OK', count: 0 });
    expect((await call(t.app, 'GET', '/users/count', { query: { includeAllTenants: 'true' } })).json).toEqual({ status: 'OK', count: 2 });
    expect((await call(t.app, 'POST', '/acme/recipe/signup', { body: { email: 'ann@x.com', password: 'another-pass1' } })).json).toEqual({
      status: 'EMAIL_ALREADY_EXISTS_ERROR',
    });
  });

  it('creates a session in the tenant: tId and a handle naming it', async () => {
    await createTenant(t.app, 'acme');
    const id = await signUp(t.app, 'acme', 'ann@x.com', 'acme-password1');
    const body = { userId: id, userDataInJWT: {}, userDataInDatabase: {}, enableAntiCsrf: false };
    const reply = await call(t.app, 'POST', '/acme/recipe/session', { body });
    expect(reply.statusCode).toBe(200);
    expect(reply.json.session.handle).toMatch(/^[0-9a-f-]{36}_acme$/);
    expect(claimsOf(reply.json.accessToken.token).tId).toBe('acme');
  });

  it('answers an unknown tenant as before', async () => {
    const reply = await call(t.app, 'POST', '/nope/recipe/signin', { body: { email: 'a@x.com', password: 'password1' } });
    expect([reply.statusCode, expectText(reply)]).toEqual([
      400,
      'AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, public, nope)',
    ]);
  });
});

describe('M7 and M8', () => {
  // Twenty racing associations each hold a connection while they wait on one another: none must be answered busy.
  const t = useTestApp({ postgresql_connection_pool_size: 30 }, { truncateEach: true });

  it('associates a public user into a tenant, where it then signs in, and refuses a second user with its email', async () => {
    await createTenant(t.app, 'acme');
    const id = await signUp(t.app, 'public', 'bob@x.com', 'bob-password1');
    expect((await associate(t.app, 'acme', id)).json).toEqual({ status: 'OK', wasAlreadyAssociated: false });
    expect((await associate(t.app, 'acme', id)).json).toEqual({ status: 'OK', wasAlreadyAssociated: true });
    const signedIn = (await signIn(t.app, 'acme', 'bob@x.com', 'bob-password1')).json;
    expect(signedIn.user.id).toBe(id);
    expect(signedIn.user.tenantIds).toEqual(['acme', 'public']);
    expect(signedIn.user.loginMethods[0].tenantIds).toEqual(['acme', 'public']);

    await createTenant(t.app, 'globex');
    const other = await signUp(t.app, 'globex', 'bob@x.com', 'other-password1');
    expect((await associate(t.app, 'acme', other)).json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    expect((await associate(t.app, 'acme', 'nobody')).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
  });

  it('removes the user from the tenant with its sessions and roles there only', async () => {
    await createTenant(t.app, 'acme');
    const id = await signUp(t.app, 'public', 'bob@x.com', 'bob-password1');
    await associate(t.app, 'acme', id);
    await call(t.app, 'PUT', '/recipe/role', { body: { role: 'admin', permissions: [] } });
    for (const tenant of ['acme', 'public']) {
      await call(t.app, 'PUT', `/${tenant}/recipe/user/role`, { body: { userId: id, role: 'admin' } });
      const body = { userId: id, userDataInJWT: {}, userDataInDatabase: {}, enableAntiCsrf: false };
      expect((await call(t.app, 'POST', `/${tenant}/recipe/session`, { body })).statusCode).toBe(200);
    }
    expect((await disassociate(t.app, 'acme', id)).json).toEqual({ status: 'OK', wasAssociated: true });
    expect((await disassociate(t.app, 'acme', id)).json).toEqual({ status: 'OK', wasAssociated: false });
    expect((await signIn(t.app, 'acme', 'bob@x.com', 'bob-password1')).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    const sessions = await t.db.pool.query('SELECT tenant_id FROM session_info ORDER BY tenant_id');
    expect(sessions.rows).toEqual([{ tenant_id: 'public' }]);
    const roles = await t.db.pool.query('SELECT tenant_id FROM user_roles ORDER BY tenant_id');
    expect(roles.rows).toEqual([{ tenant_id: 'public' }]);
  });

  it('leaves a user whose last tenant is removed reachable by id, in no tenant', async () => {
    await createTenant(t.app, 'acme');
    const id = await signUp(t.app, 'acme', 'cat@x.com', 'cat-password1');
    expect((await call(t.app, 'POST', '/recipe/multitenancy/tenant/remove', { body: { tenantId: 'acme' } })).json).toEqual({
      status: 'OK',
      didExist: true,
    });
    const user = (await call(t.app, 'GET', '/user/id', { query: { userId: id } })).json;
    expect(user.user.tenantIds).toEqual([]);
    await createTenant(t.app, 'acme');
    expect((await associate(t.app, 'acme', id)).json).toEqual({ status: 'OK', wasAlreadyAssociated: false });
  });

  it('takes a deleted user out of every tenant, so its email signs up again in each', async () => {
    await createTenant(t.app, 'acme');
    const id = await signUp(t.app, 'public', 'eve@x.com', 'eve-password1');
    expect((await associate(t.app, 'acme', id)).json.status).toBe('OK');
    expect((await call(t.app, 'POST', '/user/remove', { body: { userId: id } })).json).toEqual({ status: 'OK' });
    expect((await t.db.pool.query('SELECT tenant_id FROM login_method_tenants WHERE user_id = $1', [id])).rows).toEqual([]);
    await signUp(t.app, 'public', 'eve@x.com', 'eve-password2');
    await signUp(t.app, 'acme', 'eve@x.com', 'eve-password3');
  });

  it('leaves no membership behind when associations race the removal of the user', async () => {
    await createTenant(t.app, 'acme');
    for (let round = 0; round < 5; round++) {
      const id = await signUp(t.app, 'public', `fay${round}@x.com`, 'fay-password1');
      const replies = await Promise.all([
        ...Array.from({ length: 4 }, () => associate(t.app, 'acme', id)),
        call(t.app, 'POST', '/user/remove', { body: { userId: id } }),
      ]);
      expect(replies.map((reply) => [reply.statusCode, reply.statusCode === 200 ? '' : reply.body])).toEqual(Array(5).fill([200, '']));
      expect((await t.db.pool.query('SELECT tenant_id FROM login_method_tenants WHERE user_id = $1', [id])).rows).toEqual([]);
    }
  });

  it('keeps no membership of a removed tenant, also one written while the removal waits, and refuses a row naming none', async () => {
    await createTenant(t.app, 'acme');
    const id = await signUp(t.app, 'public', 'gus@x.com', 'gus-password1');
    const writer = await t.db.pool.connect();
    try {
      await writer.query('BEGIN');
      await writer.query(
        `INSERT INTO login_method_tenants (tenant_id, user_id, recipe_id, email) VALUES ('acme', $1, 'emailpassword', 'gus@x.com')`,
        [id],
      );
      // The removal waits for the writer's lock on the tenant, then takes the row the writer committed.
      const removal = call(t.app, 'POST', '/recipe/multitenancy/tenant/remove', { body: { tenantId: 'acme' } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await writer.query('COMMIT');
      expect((await removal).json).toEqual({ status: 'OK', didExist: true });
    } finally {
      writer.release();
    }
    expect((await t.db.pool.query("SELECT user_id FROM login_method_tenants WHERE tenant_id = 'acme'")).rows).toEqual([]);
    await expect(
      t.db.pool.query(`INSERT INTO login_method_tenants (tenant_id, user_id, recipe_id) VALUES ('acme', $1, 'emailpassword')`, [id]),
    ).rejects.toMatchObject({ code: '23503', constraint: 'login_method_tenants__tenant_id_fkey' });
  });

  it('answers a sign-up whose tenant is removed while it writes as an unknown tenant, and keeps nothing of it', async () => {
    await createTenant(t.app, 'acme');
    const remover = await t.db.pool.connect();
    try {
      await remover.query('BEGIN');
      await remover.query("DELETE FROM tenants WHERE tenant_id = 'acme'");
      const pid = (await remover.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      const reply = call(t.app, 'POST', '/acme/recipe/signup', { body: { email: 'hal@x.com', password: 'hal-password1' } });
      const blocked = async () =>
        (await t.db.pool.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [pid])).rows[0].n >
        0;
      for (let waited = 0; !(await blocked()); waited += 20) {
        if (waited > 15_000) throw new Error('the sign-up never waited on the removal');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await remover.query('COMMIT');
      const answer = await reply;
      expect([answer.statusCode, expectText(answer)]).toEqual([
        400,
        'AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, public, acme)',
      ]);
    } finally {
      remover.release();
    }
    expect((await t.db.pool.query("SELECT count(*)::int AS n FROM users WHERE email = 'hal@x.com'")).rows).toEqual([{ n: 0 }]);
  });

  it('refuses a blank id and an unknown tenant (T-7 row 20)', async () => {
    const blank = await associate(t.app, 'public', ' ');
    expect([blank.statusCode, expectText(blank)]).toEqual([400, "Field name 'userId' cannot be an empty String"]);
    const unknown = await associate(t.app, 'nope', 'x');
    expect(unknown.statusCode).toBe(400);
    expect(expectText(unknown)).toMatch(/^AppId or tenantId not found => /);
  });

  it('lets exactly one of two same-email users in when twenty associations race', async () => {
    await createTenant(t.app, 'acme');
    await createTenant(t.app, 'globex');
    const first = await signUp(t.app, 'public', 'dan@x.com', 'dan-password1');
    const second = await signUp(t.app, 'globex', 'dan@x.com', 'dan-password2');
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => associate(t.app, 'acme', i % 2 === 0 ? first : second)));
    expect(replies.map((r) => [r.statusCode, r.statusCode === 200 ? '' : r.body])).toEqual(Array(20).fill([200, '']));
    const firstTimeOks = replies.filter((r) => r.json.status === 'OK' && r.json.wasAlreadyAssociated === false);
    expect(firstTimeOks).toHaveLength(1);
    const members = await t.db.pool.query("SELECT user_id FROM login_method_tenants WHERE tenant_id = 'acme'");
    expect(members.rows).toHaveLength(1);
    const loser = members.rows[0].user_id === first ? second : first;
    const loserReplies = replies.filter((_, i) => (i % 2 === 0 ? first : second) === loser);
    expect(loserReplies.map((r) => r.json)).toEqual(Array(10).fill({ status: 'EMAIL_ALREADY_EXISTS_ERROR' }));
  });
});
