import { findImportConflicts, type ConflictKind, type ConflictProbe } from './repository.js';
import type { Queryable } from '../db/pool.js';
import { errorMessage } from '../errors.js';
import type { ImportLoginMethod, ImportUser } from './types.js';

// The coded import errors of contract §10.5, by what collided; their texts are catalog entries.
export const importErrors = {
  accountLinking: errorMessage('IMPORT_ACCOUNT_LINKING_DISABLED'),
  emailPasswordEmail: (email: string) => errorMessage('IMPORT_EMAILPASSWORD_EMAIL_EXISTS', email),
  thirdParty: (id: string, userId: string) => errorMessage('IMPORT_THIRDPARTY_USER_EXISTS', id, userId),
  passwordlessEmail: (email: string) => errorMessage('IMPORT_PASSWORDLESS_EMAIL_EXISTS', email),
  passwordlessPhone: (phone: string) => errorMessage('IMPORT_PASSWORDLESS_PHONE_EXISTS', phone),
  externalId: (id: string) => errorMessage('IMPORT_EXTERNAL_ID_EXISTS', id),
  unknownRole: errorMessage('IMPORT_ROLE_UNKNOWN'),
};

interface Claim {
  kind: ConflictKind;
  key: string;
  message: string;
}

// What a user takes that must stay unique, in the order the reference imports it: login method, user-id mapping.
function claimsOf(user: ImportUser): Claim[] {
  const method: ImportLoginMethod = user.loginMethods[0];
  const claims: Claim[] = [];
  if (method.recipeId === 'emailpassword') {
    claims.push({ kind: 'emailpassword-email', key: method.email!, message: importErrors.emailPasswordEmail(method.email!) });
  } else if (method.recipeId === 'thirdparty') {
    const key = `${method.thirdPartyId}\n${method.thirdPartyUserId}`;
    claims.push({ kind: 'thirdparty', key, message: importErrors.thirdParty(method.thirdPartyId!, method.thirdPartyUserId!) });
  } else {
    if (method.email !== undefined) {
      claims.push({ kind: 'passwordless-email', key: method.email, message: importErrors.passwordlessEmail(method.email) });
    }
    if (method.phoneNumber !== undefined) {
      claims.push({ kind: 'passwordless-phone', key: method.phoneNumber, message: importErrors.passwordlessPhone(method.phoneNumber) });
    }
  }
  if (user.externalUserId !== undefined) {
    claims.push({ kind: 'external-id', key: user.externalUserId, message: importErrors.externalId(user.externalUserId) });
  }
  return claims;
}

function probeFor(users: ImportUser[]): ConflictProbe {
  const probe: ConflictProbe = {
    emailPasswordEmails: [],
    passwordlessEmails: [],
    passwordlessPhones: [],
    thirdPartyIds: [],
    thirdPartyUserIds: [],
    externalUserIds: [],
    roles: [],
  };
  const roles = new Set<string>();
  for (const user of users) {
    const method = user.loginMethods[0];
    if (method.recipeId === 'emailpassword') probe.emailPasswordEmails.push(method.email!);
    else if (method.recipeId === 'thirdparty') {
      probe.thirdPartyIds.push(method.thirdPartyId!);
      probe.thirdPartyUserIds.push(method.thirdPartyUserId!);
    } else {
      if (method.email !== undefined) probe.passwordlessEmails.push(method.email);
      if (method.phoneNumber !== undefined) probe.passwordlessPhones.push(method.phoneNumber);
    }
    if (user.externalUserId !== undefined) probe.externalUserIds.push(user.externalUserId);
    for (const role of user.userRoles ?? []) roles.add(role.role);
  }
  probe.roles = [...roles];
  return probe;
}

// Decides, without writing, which users of a batch cannot be imported: one query finds what already exists, then
// one pass in batch order finds duplicates inside the batch (the first user keeps the value, later ones fail, as if
// they were imported one after the other). Returns the failure message per position in `users`.
export async function detectConflicts(db: Queryable, users: ImportUser[]): Promise<Map<number, string>> {
  const failures = new Map<number, string>();
  if (users.length === 0) return failures;
  const taken = new Set<string>();
  const existingRoles = new Set<string>();
  for (const row of await findImportConflicts(db, probeFor(users))) {
    if (row.kind === 'role') existingRoles.add(row.key);
    else taken.add(`${row.kind}\u0000${row.key}`);
  }
  users.forEach((user, index) => {
    if (user.loginMethods[0].isPrimary) {
      failures.set(index, importErrors.accountLinking);
      return;
    }
    const claims = claimsOf(user);
    const conflict = claims.find((claim) => taken.has(`${claim.kind}\u0000${claim.key}`));
    if (conflict) {
      failures.set(index, conflict.message);
      return;
    }
    if ((user.userRoles ?? []).some((role) => !existingRoles.has(role.role))) {
      failures.set(index, importErrors.unknownRole);
      return;
    }
    for (const claim of claims) taken.add(`${claim.kind}\u0000${claim.key}`);
  });
  return failures;
}
