import type { Queryable } from '../../db/pool.js';

/** Creates the role if absent and adds the permissions it lacks; true when the role is new. */
export async function upsertRole(db: Queryable, role: string, permissions: string[]): Promise<boolean> {
  const { rowCount } = await db.query('INSERT INTO roles (role) VALUES ($1) ON CONFLICT (role) DO NOTHING', [role]);
  await insertPermissions(db, [role], [permissions]);
  return (rowCount ?? 0) > 0;
}

/** Set-based form for bulk import: each role with its permissions; roles that exist only gain permissions. */
export async function upsertRoles(db: Queryable, roles: string[], permissions: string[][]): Promise<void> {
  if (roles.length === 0) return;
  await db.query('INSERT INTO roles (role) SELECT r FROM unnest($1::text[]) AS k(r) ON CONFLICT (role) DO NOTHING', [roles]);
  await insertPermissions(db, roles, permissions);
}

async function insertPermissions(db: Queryable, roles: string[], permissions: string[][]): Promise<void> {
  const pairs = roles.flatMap((role, index) => permissions[index].map((permission) => [role, permission] as const));
  if (pairs.length === 0) return;
  await db.query(
    `INSERT INTO role_permissions (role, permission)
     SELECT k.role, k.permission FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS k(role, permission, ord) ORDER BY k.ord
     ON CONFLICT (role, permission) DO NOTHING`,
    [pairs.map((pair) => pair[0]), pairs.map((pair) => pair[1])],
  );
}

export async function deleteRole(db: Queryable, role: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM roles WHERE role = $1', [role]);
  return (rowCount ?? 0) > 0;
}

export async function findAllRoles(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ role: string }>('SELECT role FROM roles ORDER BY created_order');
  return rows.map((row) => row.role);
}

export async function roleExists(db: Queryable, role: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM roles WHERE role = $1', [role]);
  return (rowCount ?? 0) > 0;
}

export async function findPermissionsOfRole(db: Queryable, role: string): Promise<string[]> {
  const { rows } = await db.query<{ permission: string }>(
    'SELECT permission FROM role_permissions WHERE role = $1 ORDER BY created_order',
    [role],
  );
  return rows.map((row) => row.permission);
}

/** Removes the named permissions of a role, or all of them when `permissions` is undefined. */
export async function deletePermissions(db: Queryable, role: string, permissions: string[] | undefined): Promise<void> {
  if (permissions === undefined) await db.query('DELETE FROM role_permissions WHERE role = $1', [role]);
  else await db.query('DELETE FROM role_permissions WHERE role = $1 AND permission = ANY($2::text[])', [role, permissions]);
}

export async function findRolesWithPermission(db: Queryable, permission: string): Promise<string[]> {
  const { rows } = await db.query<{ role: string }>(
    'SELECT p.role FROM role_permissions p JOIN roles r ON r.role = p.role WHERE p.permission = $1 ORDER BY r.created_order',
    [permission],
  );
  return rows.map((row) => row.role);
}

/** Assigns the role in the tenant; undefined when no such role exists, else whether the user already had it. */
export async function insertUserRole(db: Queryable, tenantId: string, userId: string, role: string): Promise<boolean | undefined> {
  const { rows } = await db.query<{ inserted: boolean }>(
    `WITH role AS (SELECT role FROM roles WHERE role = $3 FOR KEY SHARE),
          added AS (INSERT INTO user_roles (user_id, tenant_id, role) SELECT $2, $1, role FROM role
                    ON CONFLICT (user_id, tenant_id, role) DO NOTHING RETURNING 1)
     SELECT EXISTS (SELECT 1 FROM added) AS inserted FROM role`,
    [tenantId, userId, role],
  );
  return rows.length === 0 ? undefined : !rows[0].inserted;
}

export async function deleteUserRole(db: Queryable, tenantId: string, userId: string, role: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM user_roles WHERE tenant_id = $1 AND user_id = $2 AND role = $3', [
    tenantId,
    userId,
    role,
  ]);
  return (rowCount ?? 0) > 0;
}

export async function findRolesOfUser(db: Queryable, tenantId: string, userId: string): Promise<string[]> {
  const { rows } = await db.query<{ role: string }>(
    `SELECT u.role FROM user_roles u JOIN roles r ON r.role = u.role
      WHERE u.tenant_id = $1 AND u.user_id = $2 ORDER BY r.created_order`,
    [tenantId, userId],
  );
  return rows.map((row) => row.role);
}

export async function findUsersWithRole(db: Queryable, tenantId: string, role: string): Promise<string[]> {
  const { rows } = await db.query<{ user_id: string }>(
    'SELECT user_id FROM user_roles WHERE tenant_id = $1 AND role = $2 ORDER BY user_id',
    [tenantId, role],
  );
  return rows.map((row) => row.user_id);
}

/** Every role assignment of these ids, in every tenant (user removal). */
export async function deleteRolesOfUsers(db: Queryable, userIds: string[]): Promise<void> {
  await db.query('DELETE FROM user_roles WHERE user_id = ANY($1::text[])', [userIds]);
}

/** For set-based imports: assignments of roles that exist, to users created in the same transaction. */
export async function insertUserRoles(db: Queryable, userIds: string[], tenantIds: string[], roles: string[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.query('INSERT INTO user_roles (user_id, tenant_id, role) SELECT * FROM unnest($1::text[], $2::text[], $3::text[])', [
    userIds,
    tenantIds,
    roles,
  ]);
}

/** The roles a user holds in one tenant go (the user left it). */
export async function deleteRolesOfUserInTenant(db: Queryable, tenantId: string, userIds: string[]): Promise<void> {
  await db.query('DELETE FROM user_roles WHERE tenant_id = $1 AND user_id = ANY($2::text[])', [tenantId, userIds]);
}
