import type { ServiceDependencies } from '../../service-deps.js';
import { withTransaction } from '../../db/transaction.js';
import {
  deletePermissions,
  deleteRole,
  deleteUserRole,
  findAllRoles,
  findPermissionsOfRole,
  findRolesOfUser,
  findRolesWithPermission,
  findUsersWithRole,
  insertUserRole,
  roleExists,
  upsertRole,
} from './repository.js';

type Unknown = { status: 'UNKNOWN_ROLE_ERROR' };
const unknownRole: Unknown = { status: 'UNKNOWN_ROLE_ERROR' };

/** Roles and permissions (contract M-4): roles and their permissions are app-wide, assignments per tenant. */
export class UserRolesService {
  constructor(private readonly deps: Pick<ServiceDependencies, 'pool'>) {}

  async createRoleOrAddPermissions(role: string, permissions: string[]): Promise<{ status: 'OK'; createdNewRole: boolean }> {
    const createdNewRole = await withTransaction(this.deps.pool, (client) => upsertRole(client, role, permissions));
    return { status: 'OK', createdNewRole };
  }

  async deleteRole(role: string): Promise<{ status: 'OK'; didRoleExist: boolean }> {
    return { status: 'OK', didRoleExist: await deleteRole(this.deps.pool, role) };
  }

  async allRoles(): Promise<{ roles: string[]; status: 'OK' }> {
    return { roles: await findAllRoles(this.deps.pool), status: 'OK' };
  }

  async permissionsOf(role: string): Promise<{ permissions: string[]; status: 'OK' } | Unknown> {
    return withTransaction(this.deps.pool, async (client) => {
      if (!(await roleExists(client, role))) return unknownRole;
      return { permissions: await findPermissionsOfRole(client, role), status: 'OK' as const };
    });
  }

  async removePermissions(role: string, permissions: string[] | undefined): Promise<{ status: 'OK' } | Unknown> {
    return withTransaction(this.deps.pool, async (client) => {
      if (!(await roleExists(client, role))) return unknownRole;
      await deletePermissions(client, role, permissions);
      return { status: 'OK' as const };
    });
  }

  async rolesWithPermission(permission: string): Promise<{ roles: string[]; status: 'OK' }> {
    return { roles: await findRolesWithPermission(this.deps.pool, permission), status: 'OK' };
  }

  async addRoleToUser(
    tenantId: string,
    userId: string,
    role: string,
  ): Promise<{ status: 'OK'; didUserAlreadyHaveRole: boolean } | Unknown> {
    const alreadyHad = await insertUserRole(this.deps.pool, tenantId, userId, role);
    return alreadyHad === undefined ? unknownRole : { status: 'OK', didUserAlreadyHaveRole: alreadyHad };
  }

  async removeRoleFromUser(tenantId: string, userId: string, role: string): Promise<{ status: 'OK'; didUserHaveRole: boolean } | Unknown> {
    return withTransaction(this.deps.pool, async (client) => {
      if (!(await roleExists(client, role))) return unknownRole;
      return { status: 'OK' as const, didUserHaveRole: await deleteUserRole(client, tenantId, userId, role) };
    });
  }

  async rolesOfUser(tenantId: string, userId: string): Promise<{ roles: string[]; status: 'OK' }> {
    return { roles: await findRolesOfUser(this.deps.pool, tenantId, userId), status: 'OK' };
  }

  async usersWithRole(tenantId: string, role: string): Promise<{ users: string[]; status: 'OK' } | Unknown> {
    return withTransaction(this.deps.pool, async (client) => {
      if (!(await roleExists(client, role))) return unknownRole;
      return { users: await findUsersWithRole(client, tenantId, role), status: 'OK' as const };
    });
  }
}
