import { coreError } from '../errors.js';
import { isJsonObject } from './fields.js';
import { permissionNames, roleName } from '../recipes/userroles/schemas.js';

export interface RoleDefinition {
  role: string;
  permissions: string[];
}

const MAX_ROLE_DEFINITIONS = 1000;

/**
 * Contract M-4.3 [PROPOSAL]: the roles (and permissions) a migration run uses, declared once beside its users and
 * created like PUT /recipe/role before they are assigned. Checked before the users, with the role routes' texts.
 */
export function parseRoleDefinitions(value: unknown): RoleDefinition[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw coreError('INVALID_FIELD', 'roleDefinitions');
  if (value.length > MAX_ROLE_DEFINITIONS) throw coreError('TOO_MANY_ELEMENTS', 'roleDefinitions', MAX_ROLE_DEFINITIONS);
  return value.map((item) => {
    if (!isJsonObject(item) || typeof item.role !== 'string') throw coreError('INVALID_FIELD', 'role');
    const permissions = item.permissions ?? [];
    if (!Array.isArray(permissions) || !permissions.every((permission) => typeof permission === 'string')) {
      throw coreError('INVALID_FIELD', 'permissions');
    }
    return { role: roleName(item.role, 'role'), permissions: permissionNames(permissions) };
  });
}
