import bcrypt from 'bcrypt';
import { beforeEach, describe, expect, it } from 'vitest';
import { call, snapshot, useTestApp } from '../helper.js';

// Bulk import into tenants other than public (contract-multitenancy T-3, T-5, T-7 rows 25 and 26): tenantIds must
// name existing tenants, a role's tenants must be its user's, and every uniqueness rule holds per tenant.

const invalidUsers = 'Data has missing or invalid fields. Please check the users field for more details.';
const hashOf = (password: string) => bcrypt.hashSync(password, 4);
const ep = (email: string, tenantIds: string[], password = 'pw-one', extra: Record<string, unknown> = {}) => ({
  recipeId: 'emailpassword',
  email,
  passwordHash: hashOf(password),
  hashingAlgorithm: 'bcrypt',
  tenantIds,
  ...extra,
});
const pl = (contact: Record<string, string>, tenantIds: string[]) => ({ recipeId: 'passwordless', ...contact, tenantIds });
const tp = (id: string, tenantIds: string[]) => ({
  recipeId: 'thirdparty',
  email: `${id}@example.com`,
  thirdPartyId: 'google',
  thirdPartyUserId: id,
  tenantIds,
});

const t = useTestApp({ bulk_import_worker: false }, { truncateEach: true });

const bulk = (users: unknown[], query: Record<string, string> = {}) =>
  call(t.app, 'POST', '/bulk-import/users', { body: { users }, query });
const signIn = async (tenant: string, email: string, password: string) => {
  const reply = await call(t.app, 'POST', `/${tenant}/recipe/signin`, { body: { email, password } });
  return reply.json.status === 'OK' ? reply.json.user.id : reply.json.status;
};
const userById = async (userId: string) => (await call(t.app, 'GET', '/user/id', { query: { userId } })).json.user;
const rolesIn = async (tenant: string, userId: string) =>
  (await call(t.app, 'GET', `/${tenant}/recipe/user/roles`, { query: { userId } })).json;
const memberships = async () =>
  (
    await t.db.pool.query<{ tenant_id: string; email: string; created_in: string }>(
      `SELECT t.tenant_id, t.email, u.tenant_id AS created_in FROM login_method_tenants t JOIN users u ON u.user_id = t.user_id
        ORDER BY t.email, t.tenant_id, u.tenant_id`,
    )
  ).rows.map((row) => [row.email, row.tenant_id, row.created_in]);

beforeEach(async () => {
  for (const tenantId of ['acme', 'globex']) {
    const reply = await call(t.app, 'PUT', '/recipe/multitenancy/tenant/v2', { body: { tenantId, firstFactors: ['emailpassword'] } });
    expect(reply.json.status).toBe('OK');
  }
  await t.db.pool.query("INSERT INTO roles (role) VALUES ('admin'), ('member')");
});

describe('bulk import tenantIds: validation (T-7 row 25)', () => {
  const cases: [string, unknown, string[]][] = [
    [
      'an email-password login method in no such tenant',
      { loginMethods: [ep('a@example.com', ['nope'])] },
      ['Invalid tenantId: nope for emailpassword recipe.'],
    ],
    [
      'a passwordless one, the id quoted as given',
      { loginMethods: [pl({ email: 'a@example.com' }, ['public', ' Nope'])] },
      ['Invalid tenantId:  Nope for passwordless recipe.'],
    ],
    ['a third-party one', { loginMethods: [tp('g-1', ['acme', 'nope'])] }, ['Invalid tenantId: nope for thirdparty recipe.']],
    [
      'a role in no such tenant',
      { userRoles: [{ role: 'admin', tenantIds: ['nope'] }], loginMethods: [ep('a@example.com', ['acme'])] },
      ['Invalid tenantId: nope for a user role.'],
    ],
    [
      'a role in a tenant none of the login methods is in',
      {
        userRoles: [{ role: 'admin', tenantIds: ['acme', 'globex'] }],
        loginMethods: [ep('a@example.com', ['public']), tp('g-1', ['globex'])],
      },
      ['TenantId acme for a user role does not exist in loginMethods.'],
    ],
  ];

  it.each(cases)('%s: the user gets the error, and nothing is written, in the queue and the single import', async (_name, user, errors) => {
    const before = await snapshot(t.db);
    const queued = await bulk([user]);
    expect([queued.statusCode, queued.json]).toEqual([400, { error: invalidUsers, users: [{ index: 0, errors }] }]);
    const single = await call(t.app, 'POST', '/bulk-import/import', { body: user });
    expect([single.statusCode, single.json]).toEqual([400, { errors }]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('accepts tenant ids in any case and spacing, a tenant listed twice once, and a role in public whatever the tenants', async () => {
    const user = {
      externalUserId: 'ann',
      userRoles: [{ role: 'admin', tenantIds: ['public', ' ACME '] }],
      loginMethods: [ep('ann@example.com', ['Acme', 'acme '])],
    };
    const reply = await call(t.app, 'POST', '/bulk-import/import', { body: user });
    expect(reply.statusCode, reply.body).toBe(200);
    expect((await userById('ann')).tenantIds).toEqual(['acme']);
    expect(await memberships()).toEqual([['ann@example.com', 'acme', 'acme']]);
    expect(await rolesIn('acme', 'ann')).toEqual({ status: 'OK', roles: ['admin'] });
    expect(await rolesIn('public', 'ann')).toEqual({ status: 'OK', roles: ['admin'] });
  });
});

describe('bulk import tenantIds: uniqueness per tenant (T-7 row 26)', () => {
  const conflicts: [string, (tenants: string[]) => object, string][] = [
    [
      'email-password email',
      (tenantIds) => ep('same@example.com', tenantIds),
      'E003: A user with email same@example.com already exists in emailpassword loginMethod.',
    ],
    [
      'passwordless email',
      (tenantIds) => pl({ email: 'same@example.com' }, tenantIds),
      'E006: A user with email same@example.com already exists in passwordless loginMethod.',
    ],
    [
      'passwordless phone',
      (tenantIds) => pl({ phoneNumber: '+14155550100' }, tenantIds),
      'E007: A user with phoneNumber +14155550100 already exists in passwordless loginMethod.',
    ],
    [
      'third-party account',
      (tenantIds) => tp('g-same', tenantIds),
      'E005: A user with thirdPartyId google and thirdPartyUserId g-same already exists in thirdparty loginMethod.',
    ],
  ];

  it.each(conflicts)('%s: two users in acme, the second is refused; in acme and globex both import', async (_name, method, error) => {
    const inBoth = await bulk([{ loginMethods: [method(['public', 'acme'])] }, { loginMethods: [method(['acme'])] }], { dryRun: 'true' });
    expect([inBoth.statusCode, inBoth.json]).toEqual([400, { error: invalidUsers, users: [{ index: 1, errors: [error] }] }]);

    const apart = await bulk([{ loginMethods: [method(['acme'])] }, { loginMethods: [method(['globex'])] }], { importNow: 'true' });
    expect(apart.statusCode, apart.body).toBe(200);
    const users = await t.db.pool.query('SELECT user_id, tenant_id FROM users ORDER BY tenant_id');
    expect(users.rows.map((row) => row.tenant_id)).toEqual(['acme', 'globex']);

    // One already in acme: the queue path fails the newcomer with the coded message, the single import answers it.
    const before = await snapshot(t.db);
    const queued = await bulk([{ loginMethods: [method(['public', 'acme'])] }]);
    expect(queued.statusCode).toBe(200);
    await t.app.services.bulkImportWorker.processUntilEmpty();
    const failed = await t.db.pool.query('SELECT status, error_message FROM bulk_import_users');
    expect(failed.rows).toEqual([{ status: 'FAILED', error_message: error }]);
    await t.db.pool.query('DELETE FROM bulk_import_users');
    const single = await call(t.app, 'POST', '/bulk-import/import', { body: { loginMethods: [method(['globex'])] } });
    expect([single.statusCode, single.json]).toEqual([400, { errors: [error] }]);
    expect(await snapshot(t.db)).toEqual(before);
  });
});

describe('bulk import into tenants: storage and sign-in', () => {
  it('imports the same email in acme and globex as two users, each signing in only in its own tenant', async () => {
    const reply = await bulk([
      { externalUserId: 'ann-acme', loginMethods: [ep('ann@example.com', ['acme'], 'pw-acme')] },
      { externalUserId: 'ann-globex', loginMethods: [ep('ann@example.com', ['globex'], 'pw-globex')] },
    ]);
    expect(reply.statusCode).toBe(200);
    await t.app.services.bulkImportWorker.processUntilEmpty();
    const acme = (await userById('ann-acme')).id;
    const globex = (await userById('ann-globex')).id;
    expect(acme).not.toBe(globex);
    expect((await userById('ann-acme')).tenantIds).toEqual(['acme']);
    expect(await signIn('acme', 'ann@example.com', 'pw-acme')).toBe(acme);
    expect(await signIn('acme', 'ann@example.com', 'pw-globex')).toBe('WRONG_CREDENTIALS_ERROR');
    expect(await signIn('globex', 'ann@example.com', 'pw-globex')).toBe(globex);
    expect(await signIn('globex', 'ann@example.com', 'pw-acme')).toBe('WRONG_CREDENTIALS_ERROR');
    expect(await signIn('public', 'ann@example.com', 'pw-acme')).toBe('WRONG_CREDENTIALS_ERROR');
    expect(await memberships()).toEqual([
      ['ann@example.com', 'acme', 'acme'],
      ['ann@example.com', 'globex', 'globex'],
    ]);
  });

  it('puts one login method in every tenant listed, created in the first, with each role assigned in its tenant', async () => {
    const user = {
      externalUserId: 'bob',
      userRoles: [
        { role: 'admin', tenantIds: ['acme'] },
        { role: 'member', tenantIds: ['globex', 'acme'] },
      ],
      loginMethods: [ep('bob@example.com', ['public', 'globex', 'acme'], 'pw-bob')],
    };
    const reply = await bulk([user], { importNow: 'true' });
    expect(reply.statusCode, reply.body).toBe(200);
    const bob = await userById('bob');
    expect([bob.tenantIds, bob.loginMethods[0].tenantIds]).toEqual([
      ['acme', 'globex', 'public'],
      ['acme', 'globex', 'public'],
    ]);
    for (const tenant of ['public', 'acme', 'globex']) expect(await signIn(tenant, 'bob@example.com', 'pw-bob')).toBe(bob.id);
    expect(await memberships()).toEqual([
      ['bob@example.com', 'acme', 'public'],
      ['bob@example.com', 'globex', 'public'],
      ['bob@example.com', 'public', 'public'],
    ]);
    expect(await rolesIn('acme', 'bob')).toEqual({ status: 'OK', roles: ['admin', 'member'] });
    expect(await rolesIn('globex', 'bob')).toEqual({ status: 'OK', roles: ['member'] });
    expect(await rolesIn('public', 'bob')).toEqual({ status: 'OK', roles: [] });
  });

  it('a primary user reserves its values in the tenants of the login methods holding them; another there is refused, elsewhere not', async () => {
    const linked = (n: number, email: string) => ({
      externalUserId: `linked-${n}`,
      loginMethods: [ep(email, ['acme']), tp(`g-${n}`, ['globex'])],
    });
    const first = await bulk([linked(1, 'carol@example.com')], { importNow: 'true' });
    expect(first.statusCode, first.body).toBe(200);
    const { rows } = await t.db.pool.query('SELECT tenant_id, info_type, info_value FROM primary_account_infos ORDER BY 1, 2, 3');
    expect(rows.map((row) => [row.tenant_id, row.info_type, row.info_value])).toEqual([
      ['acme', 'email', 'carol@example.com'],
      ['globex', 'email', 'g-1@example.com'],
      ['globex', 'tparty', 'google::g-1'],
    ]);
    const second = await bulk(
      [{ externalUserId: 'linked-2', loginMethods: [pl({ email: 'carol@example.com' }, ['acme']), tp('g-2', ['public'])] }],
      { dryRun: 'true' },
    );
    const elsewhere = { externalUserId: 'linked-3', loginMethods: [pl({ email: 'carol@example.com' }, ['globex']), tp('g-3', ['globex'])] };
    expect((await bulk([elsewhere], { dryRun: 'true' })).statusCode).toBe(200);
    expect(second.json.users[0].errors).toEqual([
      'E027: there is a conflicting account info: email carol@example.com already belongs to user linked-1',
    ]);
  });

  it('fails a queued user whose tenant was removed before the worker took it, importing the others', async () => {
    const reply = await bulk([{ loginMethods: [ep('dan@example.com', ['acme'])] }, { loginMethods: [ep('eve@example.com', ['globex'])] }]);
    expect(reply.statusCode).toBe(200);
    await call(t.app, 'POST', '/recipe/multitenancy/tenant/remove', { body: { tenantId: 'acme' } });
    await t.app.services.bulkImportWorker.processUntilEmpty();
    const { rows } = await t.db.pool.query('SELECT status, error_message FROM bulk_import_users');
    expect(rows).toEqual([{ status: 'FAILED', error_message: '[Invalid tenantId: acme for emailpassword recipe.]' }]);
    expect(await memberships()).toEqual([['eve@example.com', 'globex', 'globex']]);
  });
});
