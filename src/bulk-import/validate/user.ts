import { lengthLimits } from '../../normalise/length-limits.js';
import { errorMessage } from '../../errors.js';
import { javaTrim } from '../../normalise/java-trim.js';
import { FieldReader, type JsonObject } from '../fields.js';
import type { ValidationContext } from './context.js';
import { checkTenantIds, readLoginMethods } from './login-method.js';
import { checkRequiredFactors, readRecoveryCodes, readTotpDevices, withRequiredTotp } from './second-factors.js';
import { checkStorableText } from './storable-text.js';
import { primaryLoginMethodOf, type ImportLoginMethod, type ImportUser, type ImportUserRole, type Validation } from '../types.js';
import { PUBLIC_TENANT } from '../../recipes/multitenancy/tenant-id.js';

// Contract §10.2 and AL-11.1: every error of a user is collected, in the reference's order. Throws only for the missing signer
// key, which fails the whole request with a 500 (§6.1).
export function validateUser(input: JsonObject, context: ValidationContext): Validation {
  const errors: string[] = [];
  const top = new FieldReader(errors, '.');
  const externalUserId = top.read(input, 'externalUserId', 'string');
  const userMetadata = top.read(input, 'userMetadata', 'object');
  checkRequiredFactors(userMetadata, errors);
  const userRoles = readUserRoles(input, errors, context);
  const totpDevices = readTotpDevices(input, errors, context);
  const recoveryCodes = readRecoveryCodes(input, errors, context);
  const loginMethods = readLoginMethods(input, errors, context);
  const trimmedExternalUserId = checkExternalUserId(externalUserId, errors, context);
  checkRoleTenants(userRoles, loginMethods, errors);
  checkStorableText(input, errors);

  if (errors.length > 0) return { ok: false, errors };
  const user: ImportUser = { id: primaryLoginMethodOf(loginMethods).superTokensUserId, loginMethods };
  if (trimmedExternalUserId !== undefined) user.externalUserId = trimmedExternalUserId;
  const withFactor = totpDevices !== undefined && totpDevices.length > 0 && context.secondFactors.requireTotpFactor;
  if (withFactor) user.userMetadata = withRequiredTotp(userMetadata);
  else if (userMetadata !== undefined) user.userMetadata = userMetadata;
  if (userRoles !== undefined) user.userRoles = userRoles;
  if (totpDevices !== undefined && totpDevices.length > 0) user.totpDevices = totpDevices;
  if (recoveryCodes !== undefined && recoveryCodes.length > 0) user.recoveryCodes = recoveryCodes;
  return { ok: true, user };
}

function readUserRoles(input: JsonObject, errors: string[], context: ValidationContext): ImportUserRole[] | undefined {
  const roles = new FieldReader(errors, '.').read(input, 'userRoles', 'array of object');
  if (roles === undefined) return undefined;
  const reader = new FieldReader(errors, ' for a user role.');
  const result: ImportUserRole[] = [];
  for (const item of roles) {
    const role = reader.read(item, 'role', 'string', true);
    const tenantIds = reader.read(item, 'tenantIds', 'array of string', true);
    let trimmedRole: string | undefined;
    if (role !== undefined) {
      if (role.length > 255) errors.push(errorMessage('BULK_VALUE_TOO_LONG', 'role', role, 255));
      trimmedRole = javaTrim(role);
      if (!context.roles.has(trimmedRole)) errors.push(errorMessage('BULK_ROLE_MISSING', trimmedRole));
    }
    const tenants = checkTenantIds(tenantIds, errors, context, ' for a user role.');
    if (trimmedRole !== undefined && tenantIds !== undefined) result.push({ role: trimmedRole, tenantIds: tenants });
  }
  return result;
}

// A role is assigned in a tenant the user is in; `public` is exempt, as in the reference (BulkImportUserUtils).
function checkRoleTenants(roles: ImportUserRole[] | undefined, loginMethods: ImportLoginMethod[], errors: string[]): void {
  if (roles === undefined) return;
  const memberOf = new Set(loginMethods.flatMap((method) => method.tenantIds));
  for (const { tenantIds } of roles) {
    for (const tenantId of tenantIds) {
      if (tenantId !== PUBLIC_TENANT && !memberOf.has(tenantId))
        errors.push(errorMessage('BULK_ROLE_TENANT_NOT_IN_LOGIN_METHODS', tenantId));
    }
  }
}

function checkExternalUserId(externalUserId: string | undefined, errors: string[], context: ValidationContext): string | undefined {
  if (externalUserId === undefined) return undefined;
  if (externalUserId.length > lengthLimits.externalUserId) {
    errors.push(errorMessage('BULK_VALUE_TOO_LONG', 'externalUserId', externalUserId, lengthLimits.externalUserId));
  }
  const trimmed = javaTrim(externalUserId);
  if (context.externalUserIds.has(trimmed)) {
    errors.push(errorMessage('BULK_EXTERNAL_ID_REPEATED', externalUserId));
  }
  context.externalUserIds.add(trimmed);
  return trimmed;
}
