import type { Queryable } from '../db/pool.js';
import { violatedConstraintOf } from '../db/pg-errors.js';
import { addLoginMethodsToTenants, insertLoginMethods, type NewUserRows } from '../users/login-method-repository.js';
import { PUBLIC_TENANT } from '../recipes/multitenancy/tenant-id.js';
import { insertUserIdMappings } from '../users/id-mapping/repository.js';
import { insertEmailVerifications } from '../recipes/emailverification/repository.js';
import { insertUserRoles } from '../recipes/userroles/repository.js';
import type { PasswordHasher } from '../hashing/registry.js';
import { insertPrimaryGroups } from '../account-linking/repository.js';
import type { RecipeId } from '../users/repository.js';
import { detectConflicts, importErrors } from './conflicts.js';
import { becomesPrimaryUser, outputIdOf, type ImportLoginMethod, type ImportOutcome, type ImportUser } from './types.js';
import { mergeMetadataOfUsers } from '../recipes/usermetadata/repository.js';
import { upsertDevices, type NewDevice } from '../recipes/totp/repository.js';
import type { TotpSecretBox } from '../keys/secret-box.js';
import { insertRecoveryCodes, type NewRecoveryCode } from '../recipes/totp/recovery-codes-repository.js';
import { insertImportedCredentials, type NewCredential } from '../recipes/webauthn/repository.js';

// Imports validated users inside the caller's transaction with one statement per table, and answers one outcome per
// user. Conflicts with the database and inside the batch are found up front (detectConflicts), so the INSERTs are
// plain ones: ON CONFLICT DO NOTHING would cost half as much again per row, for a race that rarely happens. When it
// does (a sign-up or another core commits the same email between our check and our INSERT), the statement fails
// with a unique violation; the caller rolls back to its savepoint and tries again, and the repeated check now sees
// the winner (explainImportError names it if it still gets through). A user with several login methods (or marked
// primary) gets its primary group and the ids of its login methods first; the users insert trigger (migrations 0011,
// 0013) then gives the group its time_joined and reservations in the same statement (AL-11.2). A login method listed
// in several tenants joins the others in one more statement, whose trigger (migration 0043) reserves the primary
// users' values there too.
export async function importUsers(
  db: Queryable,
  users: ImportUser[],
  hasher: PasswordHasher,
  totpSecrets: TotpSecretBox,
): Promise<ImportOutcome[]> {
  const outcomes: ImportOutcome[] = users.map(() => ({ ok: true }));
  for (const [index, message] of await detectConflicts(db, users)) outcomes[index] = { ok: false, message };

  const pending = inInsertOrder(users.filter((_, index) => outcomes[index].ok));
  if (pending.length === 0) return outcomes;
  const linked = pending.filter(becomesPrimaryUser);
  if (linked.length > 0) {
    const { groups, loginMethods } = primaryGroupRows(linked);
    await insertPrimaryGroups(db, groups, loginMethods);
  }
  const methods = inKeyOrder(
    pending.flatMap((user) => user.loginMethods),
    insertKeyOf,
  );
  const hashes = await passwordHashesFor(methods, hasher);
  await insertLoginMethods(db, userRows(methods, hashes));
  const further = furtherMemberships(methods);
  await addLoginMethodsToTenants(db, further.userIds, further.tenantIds);
  const mapped = pending.filter((user) => user.externalUserId !== undefined);
  await insertUserIdMappings(
    db,
    mapped.map((user) => user.id),
    mapped.map((user) => user.externalUserId!),
  );
  await insertDependents(db, pending, totpSecrets);
  return outcomes;
}

// The coded message for a constraint a user's import broke, named from the user's own values (never from the
// database's error detail); undefined for anything that is not the user's fault. With several login methods of one
// recipe, the first one's value is named.
export function explainImportError(error: unknown, user: ImportUser): string | undefined {
  const method = (recipeId: RecipeId, has: (m: ImportLoginMethod) => boolean = () => true) =>
    user.loginMethods.find((m) => m.recipeId === recipeId && has(m))!;
  switch (violatedConstraintOf(error)) {
    case 'primary_account_infos__info_key':
      // Checked free before the insert: another primary user took one of them in the meantime.
      return importErrors.accountInfo(`one of ${accountInfosOf(user)} became another primary user's while this user was imported`);
    case 'login_method_tenants__email_key':
      return emailTaken(user);
    case 'login_method_tenants__thirdparty_key': {
      const { thirdPartyId, thirdPartyUserId } = method('thirdparty');
      return importErrors.thirdParty(thirdPartyId!, thirdPartyUserId!);
    }
    case 'login_method_tenants__passwordless_phone_number_key':
      return importErrors.passwordlessPhone(method('passwordless', (m) => m.phoneNumber !== undefined).phoneNumber!);
    case 'user_id_mappings__external_user_id_key':
      return importErrors.externalId(user.externalUserId!);
    case 'user_id_mappings__external_user_id_not_user_id':
      return importErrors.externalIdIsUserId;
    case 'user_ids__user_id_not_external_user_id':
      return importErrors.externalId(user.id);
    case 'user_roles__role_fkey':
      return importErrors.unknownRole;
    case 'webauthn_credentials__pkey': {
      const [first] = method('webauthn').credentials!;
      return importErrors.webauthnCredential(`${first.rpId}\n${first.credentialId}`, 'another user');
    }
    default:
      return undefined;
  }
}

// One unique index holds the emails of every recipe but third party (migration 0048): the message names the user's
// first login method whose email that index holds.
function emailTaken(user: ImportUser): string {
  const { recipeId, email } = user.loginMethods.find((m) => m.email !== undefined && m.recipeId !== 'thirdparty')!;
  if (recipeId === 'passwordless') return importErrors.passwordlessEmail(email!);
  if (recipeId === 'webauthn') return importErrors.webauthnEmail(email!);
  return importErrors.emailPasswordEmail(email!);
}

const insertKeyOf = (method: ImportLoginMethod) =>
  [method.recipeId, method.email, method.phoneNumber, method.thirdPartyId, method.thirdPartyUserId].join('\u0000');

function inKeyOrder<T>(items: T[], keyOf: (item: T) => string): T[] {
  return items
    .map((item) => ({ item, key: keyOf(item) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ item }) => item);
}

// Every transaction inserts login methods in one global order of their unique values, so two cores importing
// overlapping users wait on each other instead of deadlocking; users one at a time go by their smallest value.
export function inInsertOrder(users: ImportUser[]): ImportUser[] {
  return inKeyOrder(users, (user) => user.loginMethods.map(insertKeyOf).reduce((min, key) => (key < min ? key : min)));
}

// The primary groups of linked users (time_joined: the oldest login method; the trigger recomputes it anyway) and
// the group of each of their login methods.
function primaryGroupRows(users: ImportUser[]) {
  const groups = { groupIds: [] as string[], timesJoined: [] as number[] };
  const loginMethods = { userIds: [] as string[], groupIds: [] as string[] };
  for (const user of users) {
    groups.groupIds.push(user.id);
    groups.timesJoined.push(Math.min(...user.loginMethods.map((method) => method.timeJoinedInMSSinceEpoch)));
    for (const method of user.loginMethods) {
      loginMethods.userIds.push(method.superTokensUserId);
      loginMethods.groupIds.push(user.id);
    }
  }
  return { groups, loginMethods };
}

// plainTextPassword (only in rows queued before enqueue hashed it, and in /bulk-import/import) is hashed now, with the
// configured algorithm, off the event loop, in the verification scheduler's background lane. A given (validated) hash
// wins when both are present.
async function passwordHashesFor(methods: ImportLoginMethod[], hasher: PasswordHasher): Promise<(string | null)[]> {
  return Promise.all(
    methods.map((method) => {
      if (method.recipeId !== 'emailpassword') return null;
      if (method.passwordHash !== undefined && method.hashingAlgorithm !== undefined) return method.passwordHash;
      return hasher.hash(method.plainTextPassword!, { background: true });
    }),
  );
}

export function userRows(methods: ImportLoginMethod[], hashes: (string | null)[]): NewUserRows {
  const rows: NewUserRows = {
    userIds: [],
    recipeIds: [],
    timesJoined: [],
    emails: [],
    phoneNumbers: [],
    thirdPartyIds: [],
    thirdPartyUserIds: [],
    passwordHashes: hashes,
    tenantIds: methods.some((method) => method.tenantIds[0] !== PUBLIC_TENANT) ? [] : null,
  };
  for (const method of methods) {
    rows.userIds.push(method.superTokensUserId);
    rows.tenantIds?.push(method.tenantIds[0]);
    rows.recipeIds.push(method.recipeId);
    rows.timesJoined.push(method.timeJoinedInMSSinceEpoch);
    rows.emails.push(method.email ?? null);
    rows.phoneNumbers.push(method.phoneNumber ?? null);
    rows.thirdPartyIds.push(method.thirdPartyId ?? null);
    rows.thirdPartyUserIds.push(method.thirdPartyUserId ?? null);
  }
  return rows;
}

// A login method is created in its first tenant (users.tenant_id, whose membership the users trigger makes) and
// joins the others here, in one global order of (tenant, values) as the login methods themselves are inserted.
export function furtherMemberships(methods: ImportLoginMethod[]): { userIds: string[]; tenantIds: string[] } {
  const rows = methods.flatMap((method) =>
    method.tenantIds
      .slice(1)
      .map((tenantId) => ({ userId: method.superTokensUserId, tenantId, key: `${tenantId}\u0000${insertKeyOf(method)}` })),
  );
  const ordered = inKeyOrder(rows, (row) => row.key);
  return { userIds: ordered.map((row) => row.userId), tenantIds: ordered.map((row) => row.tenantId) };
}

async function insertDependents(db: Queryable, users: ImportUser[], totpSecrets: TotpSecretBox): Promise<void> {
  const verified = { ids: [] as string[], emails: [] as string[] };
  const metadata = { ids: [] as string[], values: [] as string[] };
  const roles = { ids: [] as string[], tenants: [] as string[], roles: [] as string[] };
  const devices: NewDevice[] = [];
  const recoveryCodes: NewRecoveryCode[] = [];
  const passkeys: NewCredential[] = [];
  // Informative only (never compared), so the wall clock rather than the request's.
  const now = Date.now();
  for (const user of users) {
    for (const method of user.loginMethods) {
      if (method.isVerified && method.email !== undefined) {
        verified.ids.push(method.superTokensUserId);
        verified.emails.push(method.email);
      }
      passkeys.push(...passkeyRows(method));
    }
    // Metadata, roles and second factors go under the id the app knows the user by: the external id when given,
    // else the primary login method's (M-2.1, M-4.3, AL-11.2 step 6); metadata merges into a row already there (M-3).
    const userId = outputIdOf(user);
    if (user.userMetadata !== undefined) {
      metadata.ids.push(userId);
      metadata.values.push(JSON.stringify(user.userMetadata));
    }
    // A role listed twice for one user is one assignment.
    const assigned = new Set<string>();
    for (const { role, tenantIds } of user.userRoles ?? []) {
      for (const tenantId of tenantIds) {
        if (assigned.has(`${tenantId}\u0000${role}`)) continue;
        assigned.add(`${tenantId}\u0000${role}`);
        roles.ids.push(userId);
        roles.tenants.push(tenantId);
        roles.roles.push(role);
      }
    }
    for (const device of user.totpDevices ?? []) {
      devices.push({ userId, ...device, verified: true, createdAt: now, lastUsedTimeStep: device.lastUsedTimeStep ?? null });
    }
    for (const code of user.recoveryCodes ?? []) {
      recoveryCodes.push({
        userId,
        hashingAlgorithm: code.hashingAlgorithm,
        hash: code.hash,
        salt: code.salt ?? null,
        usedAt: code.usedAt ?? null,
        createdAt: now,
      });
    }
  }
  await insertEmailVerifications(db, verified.ids, verified.emails);
  await mergeMetadataOfUsers(db, metadata.ids, metadata.values);
  await insertUserRoles(db, roles.ids, roles.tenants, roles.roles);
  await upsertDevices(db, totpSecrets, devices);
  await insertRecoveryCodes(db, recoveryCodes);
  await insertImportedCredentials(db, passkeys);
}

// What of a user's login methods a primary user holds exclusively: its emails, phone numbers and third-party logins.
function accountInfosOf(user: ImportUser): string {
  const infos = new Set<string>();
  for (const method of user.loginMethods) {
    if (method.email !== undefined) infos.add(`email ${method.email}`);
    if (method.phoneNumber !== undefined) infos.add(`phone number ${method.phoneNumber}`);
    if (method.thirdPartyId !== undefined) infos.add(`${method.thirdPartyId} account ${method.thirdPartyUserId}`);
  }
  return [...infos].join(', ');
}

/** The credential rows of a login method's imported passkeys. */
export function passkeyRows(method: ImportLoginMethod) {
  return (method.credentials ?? []).map((passkey) => ({
    rp_id: passkey.rpId,
    credential_id: passkey.credentialId,
    user_id: method.superTokensUserId,
    public_key: Buffer.from(passkey.publicKey, 'base64url'),
    counter: passkey.counter,
    transports: passkey.transports,
    aaguid: passkey.aaguid ?? null,
    user_handle: passkey.userHandle ?? null,
    backup_eligible: false,
    backed_up: false,
    created_at: passkey.createdAt ?? method.timeJoinedInMSSinceEpoch,
  }));
}
