import { findImportConflicts, type ConflictKind, type ConflictProbe } from './repository.js';
import type { Queryable } from '../db/pool.js';
import { errorMessage } from '../errors.js';
import { findIdClashesOf } from '../users/id-mapping/id-rules.js';
import { becomesPrimaryUser, type ImportLoginMethod, type ImportUser } from './types.js';
import { findWebauthnImportConflicts } from '../recipes/webauthn/repository.js';

// The coded import errors of contract §10.5 and AL-11.2, by what collided; their texts are catalog entries.
export const importErrors = {
  accountInfo: (what?: string) => errorMessage('IMPORT_ACCOUNT_INFO_CONFLICT', what),
  emailPasswordEmail: (email: string) => errorMessage('IMPORT_EMAILPASSWORD_EMAIL_EXISTS', email),
  thirdParty: (id: string, userId: string) => errorMessage('IMPORT_THIRDPARTY_USER_EXISTS', id, userId),
  passwordlessEmail: (email: string) => errorMessage('IMPORT_PASSWORDLESS_EMAIL_EXISTS', email),
  passwordlessPhone: (phone: string) => errorMessage('IMPORT_PASSWORDLESS_PHONE_EXISTS', phone),
  externalId: (id: string) => errorMessage('IMPORT_EXTERNAL_ID_EXISTS', id),
  externalIdIsUserId: errorMessage('IMPORT_EXTERNAL_ID_IS_USER_ID'),
  unknownRole: errorMessage('IMPORT_ROLE_UNKNOWN'),
  webauthnEmail: (email: string) => errorMessage('IMPORT_WEBAUTHN_EMAIL_EXISTS', email),
  webauthnCredential: (key: string, holder: string) => {
    const [rpId, credentialId] = key.split('\n');
    return errorMessage('IMPORT_WEBAUTHN_CREDENTIAL_EXISTS', credentialId, rpId, holder);
  },
};

// 'user-id': an id of the batch's login methods; 'named-id': an id that names a user already or a queued one.
type ClaimKind = ConflictKind | 'user-id' | 'named-id' | 'webauthn-email' | 'webauthn-credential';

interface Claim {
  kind: ClaimKind;
  key: string;
  message: string;
  // Values of other kinds that refuse this claim too: one id names one user (id-rules.ts), so an external id may
  // not be a user id and a user id may not be an external id.
  clash?: { kinds: ClaimKind[]; message: string };
}

export type AccountInfoType = 'email' | 'phone' | 'tparty';

/**
 * The values a user imported as a primary user reserves (AL-2.1): every email (any recipe), phone number and
 * third-party login ('<thirdPartyId>::<thirdPartyUserId>') of its login methods, each once in each tenant of the
 * login method holding it (contract-multitenancy T-2). None for a standalone one.
 */
export function accountInfosOf(user: ImportUser): { tenantId: string; type: AccountInfoType; value: string }[] {
  if (!becomesPrimaryUser(user)) return [];
  const infos = new Map<string, { tenantId: string; type: AccountInfoType; value: string }>();
  const add = (method: ImportLoginMethod, type: AccountInfoType, value: string | undefined) => {
    if (value === undefined) return;
    for (const tenantId of method.tenantIds) infos.set(`${tenantId}\n${type}\n${value}`, { tenantId, type, value });
  };
  for (const method of user.loginMethods) add(method, 'email', method.email);
  for (const method of user.loginMethods) add(method, 'phone', method.phoneNumber);
  for (const method of user.loginMethods) {
    if (method.recipeId === 'thirdparty') add(method, 'tparty', `${method.thirdPartyId}::${method.thirdPartyUserId}`);
  }
  return [...infos.values()];
}

// For an account-info claim, `message` holds only what the value is, completed with its holder when it conflicts.
function describeAccountInfo(type: AccountInfoType, value: string): string {
  if (type === 'email') return `email ${value}`;
  if (type === 'phone') return `phone number ${value}`;
  return `third-party account ${value.replace('::', '/')}`;
}

// A login method's values are unique per tenant: each is claimed once in each of its tenants, keyed '<tenant>\n<value>'.
function recipeClaimsOf(method: ImportLoginMethod): Claim[] {
  return method.tenantIds.flatMap((tenantId) => tenantClaimsOf(method, tenantId));
}

function tenantClaimsOf(method: ImportLoginMethod, tenantId: string): Claim[] {
  const inTenant = (value: string) => `${tenantId}\n${value}`;
  if (method.recipeId === 'webauthn') {
    const email: Claim = { kind: 'webauthn-email', key: inTenant(method.email!), message: importErrors.webauthnEmail(method.email!) };
    // The message of a credential claim is made when it conflicts: it names the holder.
    const credentials = (method.credentials ?? []).map((credential): Claim => ({
      kind: 'webauthn-credential',
      key: `${credential.rpId}\n${credential.credentialId}`,
      message: '',
    }));
    // Credentials are app-wide: claimed with the first tenant only.
    return tenantId === method.tenantIds[0] ? [email, ...credentials] : [email];
  }
  if (method.recipeId === 'emailpassword') {
    return [{ kind: 'emailpassword-email', key: inTenant(method.email!), message: importErrors.emailPasswordEmail(method.email!) }];
  }
  if (method.recipeId === 'thirdparty') {
    const key = inTenant(`${method.thirdPartyId}\n${method.thirdPartyUserId}`);
    return [{ kind: 'thirdparty', key, message: importErrors.thirdParty(method.thirdPartyId!, method.thirdPartyUserId!) }];
  }
  const claims: Claim[] = [];
  if (method.email !== undefined) {
    claims.push({ kind: 'passwordless-email', key: inTenant(method.email), message: importErrors.passwordlessEmail(method.email) });
  }
  if (method.phoneNumber !== undefined) {
    claims.push({
      kind: 'passwordless-phone',
      key: inTenant(method.phoneNumber),
      message: importErrors.passwordlessPhone(method.phoneNumber),
    });
  }
  return claims;
}

// What a user takes that must stay unique, in the order AL-11.2 checks it: the primary user's reservations, each
// login method in the order given, the ids of its login methods, the user-id mapping.
function claimsOf(user: ImportUser): Claim[] {
  const claims: Claim[] = accountInfosOf(user).map(({ tenantId, type, value }) => ({
    kind: 'account-info',
    key: `${tenantId}\n${type}\n${value}`,
    message: describeAccountInfo(type, value),
  }));
  for (const method of user.loginMethods) claims.push(...recipeClaimsOf(method));
  for (const { superTokensUserId: id } of user.loginMethods) {
    const message = importErrors.externalId(id);
    claims.push({ kind: 'user-id', key: id, message, clash: { kinds: ['external-id'], message } });
  }
  if (user.externalUserId !== undefined) {
    const { externalUserId } = user;
    const clash = { kinds: ['user-id', 'named-id'] as ClaimKind[], message: importErrors.externalIdIsUserId };
    claims.push({ kind: 'external-id', key: externalUserId, message: importErrors.externalId(externalUserId), clash });
  }
  return claims;
}

function probeFor(users: ImportUser[]): ConflictProbe {
  const probe: ConflictProbe = {
    emailPasswordEmails: { tenantIds: [], keys: [] },
    passwordlessEmails: { tenantIds: [], keys: [] },
    passwordlessPhones: { tenantIds: [], keys: [] },
    thirdParty: { tenantIds: [], ids: [], userIds: [] },
    externalUserIds: [],
    roles: [],
    accountInfos: { tenantIds: [], types: [], values: [] },
  };
  const add = (into: { tenantIds: string[]; keys: string[] }, tenantId: string, key: string) => {
    into.tenantIds.push(tenantId);
    into.keys.push(key);
  };
  const roles = new Set<string>();
  for (const user of users) {
    for (const method of user.loginMethods) {
      for (const tenantId of method.tenantIds) {
        if (method.recipeId === 'emailpassword') add(probe.emailPasswordEmails, tenantId, method.email!);
        else if (method.recipeId === 'webauthn') continue;
        else if (method.recipeId === 'thirdparty') {
          probe.thirdParty.tenantIds.push(tenantId);
          probe.thirdParty.ids.push(method.thirdPartyId!);
          probe.thirdParty.userIds.push(method.thirdPartyUserId!);
        } else {
          if (method.email !== undefined) add(probe.passwordlessEmails, tenantId, method.email);
          if (method.phoneNumber !== undefined) add(probe.passwordlessPhones, tenantId, method.phoneNumber);
        }
      }
    }
    for (const { tenantId, type, value } of accountInfosOf(user)) {
      probe.accountInfos.tenantIds.push(tenantId);
      probe.accountInfos.types.push(type);
      probe.accountInfos.values.push(value);
    }
    if (user.externalUserId !== undefined) probe.externalUserIds.push(user.externalUserId);
    for (const role of user.userRoles ?? []) roles.add(role.role);
  }
  probe.roles = [...roles];
  return probe;
}

// Decides, without writing, which users of a batch cannot be imported: one query finds what already exists and
// the id rule (id-rules.ts) a second one, then one pass in batch order finds duplicates inside the batch (the first
// user keeps the value, later ones fail, as if they were imported one after the other; an external id equal to an
// earlier user's id included) and inside one user (two login methods with one recipe key). A user fails whole.
// Returns the failure message per position in `users`.
export async function detectConflicts(db: Queryable, users: ImportUser[]): Promise<Map<number, string>> {
  const failures = new Map<number, string>();
  if (users.length === 0) return failures;
  const taken = new Set<string>();
  const existingRoles = new Set<string>();
  const probe = probeFor(users);
  // Who holds each account info a primary user of the core reserves (its old id, else its id).
  const holders = new Map<string, string>();
  for (const row of await findImportConflicts(db, probe)) {
    if (row.kind === 'role') existingRoles.add(row.key);
    else taken.add(`${row.kind}\u0000${row.key}`);
    if (row.holder !== null) holders.set(`${row.kind}\u0000${row.key}`, row.holder);
  }
  const webauthn = users.flatMap((user) => user.loginMethods.filter((method) => method.recipeId === 'webauthn'));
  const passkeys = webauthn.flatMap((method) => method.credentials ?? []);
  const webauthnTaken = await findWebauthnImportConflicts(
    db,
    {
      tenantIds: webauthn.flatMap((method) => method.tenantIds),
      emails: webauthn.flatMap((method) => method.tenantIds.map(() => method.email!)),
    },
    { rpIds: passkeys.map((passkey) => passkey.rpId), credentialIds: passkeys.map((passkey) => passkey.credentialId) },
  );
  for (const row of webauthnTaken) {
    taken.add(`${row.kind}\u0000${row.key}`);
    if (row.holder !== null) holders.set(`${row.kind}\u0000${row.key}`, row.holder);
  }
  const userIds = users.flatMap((user) => user.loginMethods.map((method) => method.superTokensUserId));
  const clashes = await findIdClashesOf(db, { externalUserIds: probe.externalUserIds, userIds });
  for (const id of clashes.externalIdsNamingUsers) taken.add(`named-id\u0000${id}`);
  for (const id of clashes.userIdsUsedAsExternalIds) taken.add(`external-id\u0000${id}`);
  users.forEach((user, index) => {
    const claims = claimsOf(user);
    const own = new Set<string>();
    const isTaken = (kind: ClaimKind, key: string) => taken.has(`${kind}\u0000${key}`) || own.has(`${kind}\u0000${key}`);
    let conflict: { claim: Claim; message: string } | undefined;
    for (const claim of claims) {
      if (isTaken(claim.kind, claim.key)) conflict = { claim, message: claim.message };
      else if (claim.clash?.kinds.some((kind) => isTaken(kind, claim.key))) conflict = { claim, message: claim.clash.message };
      if (conflict !== undefined) break;
      own.add(`${claim.kind}\u0000${claim.key}`);
    }
    if (conflict?.claim.kind === 'webauthn-credential') {
      const holder = holders.get(`${conflict.claim.kind}\u0000${conflict.claim.key}`);
      failures.set(
        index,
        importErrors.webauthnCredential(conflict.claim.key, holder === undefined ? 'another user of this request' : `user ${holder}`),
      );
      return;
    }
    if (conflict !== undefined) {
      if (conflict.claim.kind !== 'account-info') failures.set(index, conflict.message);
      else {
        const holder = holders.get(`${conflict.claim.kind}\u0000${conflict.claim.key}`);
        const by = holder === undefined ? 'another user of this request' : `user ${holder}`;
        failures.set(index, importErrors.accountInfo(`${conflict.message} already belongs to ${by}`));
      }
      return;
    }
    if ((user.userRoles ?? []).some((role) => !existingRoles.has(role.role))) {
      failures.set(index, importErrors.unknownRole);
      return;
    }
    for (const id of own) taken.add(id);
  });
  return failures;
}
