import { beforeAll, describe, expect, it } from 'vitest';
import { call, snapshot, useTestApp } from '../helper.js';
import { insertUser } from './fixtures.js';

describe('GET /users/count', () => {
  const t = useTestApp();
  beforeAll(async () => {
    for (let i = 0; i < 3; i++) await insertUser(t.db, { recipeId: 'emailpassword' });
    for (let i = 0; i < 2; i++) await insertUser(t.db, { recipeId: 'thirdparty' });
    await insertUser(t.db, { recipeId: 'passwordless', email: null, phoneNumber: '+14155552671' });
    // A user of another tenant shows what includeAllTenants adds.
    await call(t.app, 'PUT', '/recipe/multitenancy/tenant/v2', { body: { tenantId: 'other', firstFactors: ['emailpassword'] } });
    await insertUser(t.db, { recipeId: 'emailpassword', tenantId: 'other' });
  });

  const count = (query: Record<string, string> = {}, headers: Record<string, string> = {}, url = '/users/count') =>
    call(t.app, 'GET', url, { query, headers });

  it.each([
    [{}, 6],
    [{ includeRecipeIds: 'emailpassword' }, 3],
    [{ includeRecipeIds: 'thirdparty,passwordless' }, 3],
    [{ includeRecipeIds: ' EmailPassword , ,thirdparty,' }, 5],
    [{ includeRecipeIds: 'emailpassword,emailpassword' }, 3],
    [{ includeRecipeIds: 'session' }, 0],
    [{ includeRecipeIds: 'webauthn,passwordless' }, 1],
    [{ includeRecipeIds: ' , ' }, 6],
    [{ includeAllTenants: 'true' }, 7],
    [{ includeAllTenants: 'TRUE', includeRecipeIds: 'emailpassword' }, 4],
    [{ includeAllTenants: 'yes' }, 6],
  ])('counts %o exactly', async (query, expected) => {
    const reply = await count(query);
    expect([reply.statusCode, reply.json]).toEqual([200, { status: 'OK', count: expected }]);
  });

  it('adds approximate: false and asOf with allowApproximate=true at cdi 5.6 only', async () => {
    expect((await count({ allowApproximate: 'true' })).json).toEqual({ status: 'OK', count: 6, approximate: false, asOf: t.clock.nowMs });
    expect((await count({ allowApproximate: 'true' }, { 'cdi-version': '5.5' })).json).toEqual({ status: 'OK', count: 6 });
    expect((await count({ allowApproximate: 'false' })).json).toEqual({ status: 'OK', count: 6 });
  });

  it.each([
    [{ includeRecipeIds: 'emailpassword,facebook' }, 'Unknown recipe ID: facebook'],
    [{ includeRecipeIds: ' Nope ' }, 'Unknown recipe ID: Nope'],
  ])('rejects %o with 400', async (query, message) => {
    const before = await snapshot(t.db);
    const reply = await count(query);
    expect([reply.statusCode, reply.body]).toEqual([400, `${message}\n`]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('is tenant-scoped, app-scoped with includeAllTenants', async () => {
    const tenant = await count({}, {}, '/tenant1/users/count');
    expect([tenant.statusCode, tenant.body.trim()]).toEqual([
      400,
      'AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, public, tenant1)',
    ]);
    const app = await count({ includeAllTenants: 'true' }, {}, '/tenant1/users/count');
    expect([app.statusCode, app.body]).toEqual([403, 'Only public tenantId can call this app specific API\n']);
  });
});
