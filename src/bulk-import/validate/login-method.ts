import { lengthLimits } from '../../normalise/length-limits.js';
import crypto from 'node:crypto';
import { coreError, errorMessage } from '../../errors.js';
import { javaTrim } from '../../normalise/java-trim.js';
import { HASHING_ALGORITHM_NAMES } from '../../hashing/formats.js';
import { parseHashingAlgorithm } from '../../hashing/registry.js';
import { checkContact } from '../../normalise/contact.js';
import type { RecipeId } from '../../users/repository.js';
import { FieldReader, type JsonObject } from '../fields.js';
import { normaliseTenantId, type ValidationContext } from './context.js';
import { PUBLIC_TENANT } from '../../recipes/multitenancy/tenant-id.js';
import { lazyPointerFormat, pinLegacyLogin, unknownSourceOf } from '../../hashing/lazy-pointer.js';
import type { ImportLoginMethod } from '../types.js';
import { readImportedCredential } from '../../recipes/webauthn/import-credential.js';

// The loginMethods part of contract §10.2: shared keys, then the recipe's own fields.

const recipeIds: readonly string[] = ['emailpassword', 'thirdparty', 'passwordless', 'webauthn'];
// §10.2's text names the three reference algorithms; the others this core accepts follow it.
const REFERENCE_NAMES: readonly string[] = ['BCRYPT', 'ARGON2', 'IDP_SCRYPT'];
const others = HASHING_ALGORITHM_NAMES.filter((name) => !REFERENCE_NAMES.includes(name)).map((name) => name.toLowerCase());
const ALSO_ACCEPTED = others.length === 0 ? '' : ` Also accepted: ${others.join(', ')}.`;

export function readLoginMethods(input: JsonObject, errors: string[], context: ValidationContext): ImportLoginMethod[] {
  const methods = new FieldReader(errors, '.').read(input, 'loginMethods', 'array of object', true);
  if (methods === undefined) return [];
  if (methods.length === 0) {
    errors.push(errorMessage('BULK_LOGIN_METHOD_REQUIRED'));
    return [];
  }
  // AL-11.1: any number of login methods; [QUIRK] each `true` after the first adds the message once.
  let primaries = 0;
  for (const method of methods) {
    if (method.isPrimary === true && ++primaries > 1) errors.push(errorMessage('BULK_TWO_PRIMARIES'));
  }
  return methods.map((method) => readLoginMethod(method, errors, context));
}

function readLoginMethod(method: JsonObject, errors: string[], context: ValidationContext): ImportLoginMethod {
  const reader = new FieldReader(errors, ' for a loginMethod.');
  const recipeId = reader.read(method, 'recipeId', 'string', true);
  const tenantIds = reader.read(method, 'tenantIds', 'array of string');
  const isVerified = reader.read(method, 'isVerified', 'boolean');
  const isPrimary = reader.read(method, 'isPrimary', 'boolean');
  // The reference's messages for these two keys have no final period.
  const noPeriod = new FieldReader(errors, ' for a loginMethod');
  const timeJoined = noPeriod.read(method, 'timeJoinedInMSSinceEpoch', 'integer');

  if (recipeId !== undefined && !recipeIds.includes(recipeId)) {
    errors.push(errorMessage('BULK_RECIPE_ID_INVALID'));
  }
  const tenants = checkTenantIds(tenantIds, errors, context, ` for ${recipeId ?? null} recipe.`);
  if (tenantIds !== undefined && tenantIds.length === 0) errors.push(errorMessage('BULK_NO_TENANT', recipeId));
  const time = timeJoined ?? context.now;
  // A stored time passed this check when it was queued; checked again on another core, clock skew would fail it.
  if (time > context.now && context.ids === 'generate') errors.push(errorMessage('BULK_TIME_JOINED_FUTURE'));
  if (time < 0) errors.push(errorMessage('BULK_TIME_JOINED_NEGATIVE'));
  const superTokensUserId =
    context.ids === 'generate' ? crypto.randomUUID() : (noPeriod.read(method, 'superTokensUserId', 'string', true) ?? '');

  const loginMethod: ImportLoginMethod = {
    tenantIds: tenants,
    isVerified: isVerified ?? false,
    isPrimary: isPrimary ?? false,
    timeJoinedInMSSinceEpoch: time,
    recipeId: recipeId as RecipeId,
    superTokensUserId,
  };
  if (recipeId === 'emailpassword') readEmailPassword(method, loginMethod, errors, context);
  else if (recipeId === 'thirdparty') readThirdParty(method, loginMethod, errors);
  else if (recipeId === 'passwordless') readPasswordless(method, loginMethod, errors);
  else if (recipeId === 'webauthn') readWebauthn(method, loginMethod, errors, context);
  return loginMethod;
}

function readEmailPassword(method: JsonObject, target: ImportLoginMethod, errors: string[], context: ValidationContext): void {
  const reader = new FieldReader(errors, ' for an emailpassword recipe.');
  const email = reader.read(method, 'email', 'string', true);
  const passwordHash = reader.read(method, 'passwordHash', 'string');
  const hashingAlgorithm = reader.read(method, 'hashingAlgorithm', 'string');
  const plainTextPassword = reader.read(method, 'plainTextPassword', 'string');
  if ((passwordHash === undefined || hashingAlgorithm === undefined) && plainTextPassword === undefined) {
    errors.push(errorMessage('BULK_PASSWORD_REQUIRED'));
  }
  target.email = checkEmail(email, errors);

  let algorithm: string | undefined;
  if (hashingAlgorithm !== undefined) {
    algorithm = javaTrim(hashingAlgorithm).toUpperCase();
    if (parseHashingAlgorithm(algorithm) === undefined) {
      errors.push(errorMessage('BULK_HASHING_ALGORITHM_INVALID', ALSO_ACCEPTED));
      algorithm = undefined;
    }
  }
  target.hashingAlgorithm = algorithm ?? hashingAlgorithm;
  target.passwordHash = passwordHash;
  if (algorithm !== undefined && passwordHash !== undefined) {
    if (passwordHash.length > lengthLimits.passwordHash)
      errors.push(errorMessage('FIELD_TOO_LONG', 'passwordHash', lengthLimits.passwordHash));
    const check = context.hasher.checkImport(passwordHash, algorithm);
    if (check.status === 'SIGNER_KEY_MISSING') throw coreError('SIGNER_KEY_MISSING');
    if (check.status === 'INVALID') errors.push(check.message);
    else
      target.passwordHash =
        check.algorithm === lazyPointerFormat.id && target.email ? pinLegacyLogin(check.hash, target.email) : check.hash;
    const unknown = check.status === 'OK' && context.lazySources ? unknownSourceOf(check.hash, context.lazySources) : undefined;
    if (unknown !== undefined) errors.push(errorMessage('PASSWORD_HASH_INVALID', lazyPointerFormat.invalidMessage, unknown));
  }
  target.plainTextPassword = plainTextPassword;
  dropUndefined(target);
}

function readThirdParty(method: JsonObject, target: ImportLoginMethod, errors: string[]): void {
  const reader = new FieldReader(errors, ' for a thirdparty recipe.');
  const email = reader.read(method, 'email', 'string', true);
  const thirdPartyId = reader.read(method, 'thirdPartyId', 'string', true);
  const thirdPartyUserId = reader.read(method, 'thirdPartyUserId', 'string', true);
  target.email = checkEmail(email, errors);
  for (const [field, value] of [
    ['thirdPartyId', thirdPartyId],
    ['thirdPartyUserId', thirdPartyUserId],
  ] as const) {
    if (value !== undefined && value.length > lengthLimits[field])
      errors.push(errorMessage('BULK_VALUE_TOO_LONG', field, value, lengthLimits[field]));
  }
  target.thirdPartyId = thirdPartyId;
  target.thirdPartyUserId = thirdPartyUserId;
  dropUndefined(target);
}

function readPasswordless(method: JsonObject, target: ImportLoginMethod, errors: string[]): void {
  const reader = new FieldReader(errors, ' for a passwordless recipe.');
  const email = reader.read(method, 'email', 'string');
  const phoneNumber = reader.read(method, 'phoneNumber', 'string');
  target.email = checkEmail(email, errors);
  if (phoneNumber !== undefined) {
    if (phoneNumber.length > lengthLimits.phoneNumber) {
      errors.push(errorMessage('BULK_VALUE_TOO_LONG', 'phoneNumber', phoneNumber, lengthLimits.phoneNumber));
    } else target.phoneNumber = checked(checkContact('phoneNumber', phoneNumber), errors);
    target.phoneNumber ??= phoneNumber;
  }
  if (target.email === undefined && target.phoneNumber === undefined) {
    errors.push(errorMessage('BULK_CONTACT_REQUIRED'));
  }
  dropUndefined(target);
}

function readWebauthn(method: JsonObject, target: ImportLoginMethod, errors: string[], context: ValidationContext): void {
  const reader = new FieldReader(errors, ' for a webauthn recipe.');
  target.email = checkEmail(reader.read(method, 'email', 'string', true), errors);
  const credentials = method.credentials;
  if (!Array.isArray(credentials) || credentials.length === 0) {
    errors.push(errorMessage('BULK_WEBAUTHN_CREDENTIALS_REQUIRED'));
    return;
  }
  const read = credentials.map((credential, index) => readImportedCredential(credential, index, errors, context.relyingParties));
  target.credentials = read.filter((credential) => credential !== undefined);
  dropUndefined(target);
}

// The reference checks 255 but prints 256 (contract §10.2, sic).
function checkEmail(email: string | undefined, errors: string[]): string | undefined {
  if (email === undefined) return undefined;
  // One error per field: an over-long value gets the reference's length message only.
  if (email.length > lengthLimits.email - 1) {
    errors.push(errorMessage('BULK_VALUE_TOO_LONG', 'email', email, lengthLimits.email));
    return email;
  }
  return checked(checkContact('email', email), errors);
}

// A refused contact is reported and left out; "Either email or phoneNumber is required" then stays quiet about
// a contact that was given.
function checked(check: ReturnType<typeof checkContact>, errors: string[]): string {
  if (check.ok) return check.value;
  errors.push(check.message);
  return '';
}

function dropUndefined(target: ImportLoginMethod): void {
  for (const key of Object.keys(target) as (keyof ImportLoginMethod)[]) if (target[key] === undefined) delete target[key];
}

// Contract-multitenancy T-3: each id, trimmed and lower-cased as a path's tenant is, must name an existing tenant;
// the message quotes it as given. An id listed twice is one membership.
export function checkTenantIds(tenantIds: string[] | undefined, errors: string[], context: ValidationContext, suffix: string): string[] {
  if (tenantIds === undefined) return [PUBLIC_TENANT];
  const valid = new Set<string>();
  for (const tenantId of tenantIds) {
    const normalised = normaliseTenantId(tenantId);
    if (context.tenants.has(normalised)) valid.add(normalised);
    else errors.push(errorMessage('BULK_TENANT_INVALID', tenantId, suffix));
  }
  return [...valid];
}
