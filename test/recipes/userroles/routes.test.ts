import { beforeEach, describe, expect, it } from 'vitest';
import { call, snapshot, truncateAll, useTestApp } from '../../helper.js';

describe('roles and permissions routes (contract M-4)', () => {
  const t = useTestApp();
  beforeEach(() => truncateAll(t.db));
  const putRole = (body: unknown) => call(t.app, 'PUT', '/recipe/role', { body });
  const getJson = async (url: string, query: Record<string, string> = {}) => (await call(t.app, 'GET', url, { query })).json;
  const post = async (url: string, body: unknown) => (await call(t.app, 'POST', url, { body })).json;
  const addRole = async (userId: string, role: string) =>
    (await call(t.app, 'PUT', '/public/recipe/user/role', { body: { userId, role } })).json;
  const rows = async () => ({
    roles: (await t.db.pool.query('SELECT role FROM roles ORDER BY role')).rows.map((row) => row.role),
    permissions: (await t.db.pool.query('SELECT role, permission FROM role_permissions ORDER BY role, permission')).rows,
    assignments: (await t.db.pool.query('SELECT user_id, tenant_id, role FROM user_roles ORDER BY user_id, role')).rows,
  });

  it('creates, extends, assigns, lists and removes roles (M-9 item 9)', async () => {
    expect((await putRole({ role: ' admin ', permissions: ['read', 'write'] })).json).toEqual({ status: 'OK', createdNewRole: true });
    expect((await putRole({ role: 'admin', permissions: ['delete'] })).json).toEqual({ status: 'OK', createdNewRole: false });
    expect(await getJson('/recipe/role/permissions', { role: 'admin' })).toEqual({
      permissions: ['read', 'write', 'delete'],
      status: 'OK',
    });
    expect(await getJson('/recipe/roles')).toEqual({ roles: ['admin'], status: 'OK' });

    expect(await addRole('ext-1', 'admin')).toEqual({ status: 'OK', didUserAlreadyHaveRole: false });
    expect(await addRole('ext-1', 'admin')).toEqual({ status: 'OK', didUserAlreadyHaveRole: true });
    expect(await addRole('ext-1', 'ghost')).toEqual({ status: 'UNKNOWN_ROLE_ERROR' });
    expect(await getJson('/public/recipe/user/roles', { userId: 'ext-1' })).toEqual({ roles: ['admin'], status: 'OK' });
    expect(await getJson('/recipe/user/roles', { userId: 'nobody' })).toEqual({ roles: [], status: 'OK' });
    expect(await getJson('/public/recipe/role/users', { role: 'admin' })).toEqual({ users: ['ext-1'], status: 'OK' });
    expect(await getJson('/recipe/role/users', { role: 'ghost' })).toEqual({ status: 'UNKNOWN_ROLE_ERROR' });
    expect(await getJson('/recipe/permission/roles', { permission: 'read' })).toEqual({ roles: ['admin'], status: 'OK' });
    expect(await getJson('/recipe/permission/roles', { permission: 'nothing' })).toEqual({ roles: [], status: 'OK' });
    expect(await getJson('/recipe/role/permissions', { role: 'ghost' })).toEqual({ status: 'UNKNOWN_ROLE_ERROR' });

    expect(await post('/recipe/role/permissions/remove', { role: 'admin', permissions: [] })).toEqual({ status: 'OK' });
    expect((await rows()).permissions).toHaveLength(3);
    expect(await post('/recipe/role/permissions/remove', { role: 'admin', permissions: ['write', 'unknown'] })).toEqual({ status: 'OK' });
    expect((await rows()).permissions).toEqual([
      { role: 'admin', permission: 'delete' },
      { role: 'admin', permission: 'read' },
    ]);
    expect(await post('/recipe/role/permissions/remove', { role: 'admin' })).toEqual({ status: 'OK' });
    expect(await post('/recipe/role/permissions/remove', { role: 'ghost' })).toEqual({ status: 'UNKNOWN_ROLE_ERROR' });
    expect(await rows()).toEqual({
      roles: ['admin'],
      permissions: [],
      assignments: [{ user_id: 'ext-1', tenant_id: 'public', role: 'admin' }],
    });

    expect(await post('/recipe/user/role/remove', { userId: 'ext-1', role: 'ghost' })).toEqual({ status: 'UNKNOWN_ROLE_ERROR' });
    expect(await post('/recipe/user/role/remove', { userId: 'other', role: 'admin' })).toEqual({ status: 'OK', didUserHaveRole: false });
    expect(await post('/recipe/role/remove', { role: 'admin' })).toEqual({ status: 'OK', didRoleExist: true });
    expect(await post('/recipe/role/remove', { role: 'admin' })).toEqual({ status: 'OK', didRoleExist: false });
    expect(await getJson('/public/recipe/user/roles', { userId: 'ext-1' })).toEqual({ roles: [], status: 'OK' });
    expect(await rows()).toEqual({ roles: [], permissions: [], assignments: [] });
  });

  it('removes a role from a user', async () => {
    await putRole({ role: 'editor' });
    await addRole('u1', 'editor');
    expect(await post('/public/recipe/user/role/remove', { userId: 'u1', role: 'editor' })).toEqual({
      status: 'OK',
      didUserHaveRole: true,
    });
    expect((await rows()).assignments).toEqual([]);
  });

  it.each([
    ['PUT', '/recipe/role', { role: '   ' }, "Field name 'role' cannot be an empty String"],
    ['PUT', '/recipe/role', { permissions: [] }, "Field name 'role' is invalid in JSON input"],
    ['PUT', '/recipe/role', { role: 'r', permissions: 'read' }, "Field name 'permissions' is invalid in JSON input"],
    ['PUT', '/recipe/role', { role: 'r', permissions: ['read', 1] }, "Field name 'permissions' is invalid in JSON input"],
    ['PUT', '/recipe/role', { role: 'r', permissions: ['read', ' '] }, "Field name 'permissions' cannot contain an empty string"],
    ['PUT', '/recipe/role', { role: 'r'.repeat(256) }, `role ${'r'.repeat(256)} is too long. Max length is 255.`],
    ['PUT', '/recipe/user/role', { role: 'r' }, "Field name 'userId' is invalid in JSON input"],
    ['PUT', '/recipe/user/role', { userId: 'u1', role: null }, "Field name 'role' is invalid in JSON input"],
    [
      'PUT',
      '/t1/recipe/user/role',
      { userId: 'u1', role: 'r' },
      'AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, public, t1)',
    ],
    ['GET', '/recipe/role/permissions', undefined, "Field name 'role' is missing in GET request"],
    ['GET', '/recipe/permission/roles', undefined, "Field name 'permission' is missing in GET request"],
    ['GET', '/recipe/user/roles', undefined, "Field name 'userId' is missing in GET request"],
  ] as const)('%s %s %j ⇒ 400, nothing written', async (method, url, body, message) => {
    await putRole({ role: 'keep', permissions: ['p'] });
    const before = await snapshot(t.db);
    const reply = await call(t.app, method, url, method === 'GET' ? {} : { body });
    expect({ statusCode: reply.statusCode, body: reply.body }).toEqual({ statusCode: 400, body: `${message}\n` });
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('refuses a blank permission query', async () => {
    const reply = await call(t.app, 'GET', '/recipe/permission/roles', { query: { permission: ' ' } });
    expect(reply.body).toBe("Field name 'permission' cannot be an empty String\n");
  });
});
