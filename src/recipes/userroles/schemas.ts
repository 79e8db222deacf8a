import { Type } from '@sinclair/typebox';
import { StatusOnly } from '../../http/schemas.js';
import { coreError } from '../../errors.js';
import { javaTrim } from '../../normalise/java-trim.js';

// Contract M-4.1: longer names are refused rather than stored ([PROPOSAL]; the reference's column is VARCHAR(255)).
export const MAX_ROLE_LENGTH = 255;

// One object per field, checked in order (see recipes/emailpassword/schemas.ts): the first bad field is named.
export const RoleBody = Type.Object({ role: Type.String() });
export const RolePermissionsBody = Type.Intersect([
  Type.Object({ role: Type.String() }),
  Type.Object({ permissions: Type.Optional(Type.Array(Type.String())) }),
]);
export const UserRoleBody = Type.Intersect([Type.Object({ userId: Type.String() }), Type.Object({ role: Type.String() })]);

const UnknownRole = StatusOnly('UNKNOWN_ROLE_ERROR');
const Strings = Type.Array(Type.String());
export const CreateRoleResponse = Type.Object({ status: Type.Literal('OK'), createdNewRole: Type.Boolean() });
export const RemoveRoleResponse = Type.Object({ status: Type.Literal('OK'), didRoleExist: Type.Boolean() });
export const RolesResponse = Type.Object({ roles: Strings, status: Type.Literal('OK') });
export const PermissionsResponse = Type.Union([Type.Object({ permissions: Strings, status: Type.Literal('OK') }), UnknownRole]);
export const OkOrUnknownRole = Type.Union([StatusOnly('OK'), UnknownRole]);
export const AddUserRoleResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), didUserAlreadyHaveRole: Type.Boolean() }),
  UnknownRole,
]);
export const RemoveUserRoleResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), didUserHaveRole: Type.Boolean() }),
  UnknownRole,
]);
export const UsersResponse = Type.Union([Type.Object({ users: Strings, status: Type.Literal('OK') }), UnknownRole]);
export const TextError = Type.String();

/** A role or permission name as stored: Java-trimmed, not blank, at most 255 characters. */
export function roleName(value: string, kind: 'role' | 'permission'): string {
  const trimmed = javaTrim(value);
  if (trimmed === '') throw coreError('FIELD_EMPTY', kind);
  if (trimmed.length > MAX_ROLE_LENGTH) throw coreError('ROLE_TOO_LONG', kind, trimmed, MAX_ROLE_LENGTH);
  return trimmed;
}

/** The permissions of a body, each trimmed; a blank one is refused. */
export function permissionNames(values: string[]): string[] {
  return values.map((value) => {
    const trimmed = javaTrim(value);
    if (trimmed === '') throw coreError('ARRAY_EMPTY_STRING', 'permissions');
    if (trimmed.length > MAX_ROLE_LENGTH) throw coreError('ROLE_TOO_LONG', 'permission', trimmed, MAX_ROLE_LENGTH);
    return trimmed;
  });
}
