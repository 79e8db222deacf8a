import type { Queryable } from '../db/pool.js';
import { violatedConstraintOf } from '../db/pg-errors.js';
import {
  insertEmailVerifications,
  insertUserIdMappings,
  insertUserMetadata,
  insertUserRoles,
  insertUsers,
  type NewUserRows,
} from './repository.js';
import type { PasswordHasher } from '../hashing/registry.js';
import { detectConflicts, importErrors } from './conflicts.js';
import type { ImportOutcome, ImportUser } from './types.js';

// Imports validated users inside the caller's transaction with one statement per table, and answers one outcome per
// user. Conflicts with the database and inside the batch are found up front (detectConflicts), so the INSERTs are
// plain ones: ON CONFLICT DO NOTHING would cost half as much again per row, for a race that rarely happens. When it
// does (a sign-up or another core commits the same email between our check and our INSERT), the statement fails
// with a unique violation; the caller rolls back to its savepoint and tries again, and the repeated check now sees
// the winner (explainImportError names it if it still gets through).
export async function importUsers(db: Queryable, users: ImportUser[], hasher: PasswordHasher): Promise<ImportOutcome[]> {
  const outcomes: ImportOutcome[] = users.map(() => ({ ok: true }));
  for (const [index, message] of await detectConflicts(db, users)) outcomes[index] = { ok: false, message };

  const pending = inInsertOrder(users.filter((_, index) => outcomes[index].ok));
  if (pending.length === 0) return outcomes;
  const hashes = await passwordHashesFor(pending, hasher);
  await insertUsers(db, userRows(pending, hashes));
  const mapped = pending.filter((user) => user.externalUserId !== undefined);
  await insertUserIdMappings(
    db,
    mapped.map((user) => user.id),
    mapped.map((user) => user.externalUserId!),
  );
  await insertDependents(db, pending);
  return outcomes;
}

// The coded message for a constraint a user's import broke, named from the user's own values (never from the
// database's error detail); undefined for anything that is not the user's fault.
export function explainImportError(error: unknown, user: ImportUser): string | undefined {
  const method = user.loginMethods[0];
  switch (violatedConstraintOf(error)) {
    case 'users__emailpassword_email_key':
      return importErrors.emailPasswordEmail(method.email!);
    case 'users__thirdparty_key':
      return importErrors.thirdParty(method.thirdPartyId!, method.thirdPartyUserId!);
    case 'users__passwordless_email_key':
      return importErrors.passwordlessEmail(method.email!);
    case 'users__passwordless_phone_number_key':
      return importErrors.passwordlessPhone(method.phoneNumber!);
    case 'user_id_mappings__external_user_id_key':
      return importErrors.externalId(user.externalUserId!);
    case 'user_roles__role_fkey':
      return importErrors.unknownRole;
    default:
      return undefined;
  }
}

// Every transaction inserts users in one global order of their unique values, so two cores importing overlapping
// users wait on each other instead of deadlocking.
export function inInsertOrder(users: ImportUser[]): ImportUser[] {
  const keyOf = ({ loginMethods: [method] }: ImportUser) =>
    [method.recipeId, method.email, method.phoneNumber, method.thirdPartyId, method.thirdPartyUserId].join('\u0000');
  return users
    .map((user) => ({ user, key: keyOf(user) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ user }) => user);
}

// plainTextPassword (only in rows queued before enqueue hashed it, and in /bulk-import/import) is hashed now, with the
// configured algorithm, off the event loop, in the verification scheduler's background lane. A given (validated) hash
// wins when both are present.
async function passwordHashesFor(users: ImportUser[], hasher: PasswordHasher): Promise<(string | null)[]> {
  return Promise.all(
    users.map(({ loginMethods: [method] }) => {
      if (method.recipeId !== 'emailpassword') return null;
      if (method.passwordHash !== undefined && method.hashingAlgorithm !== undefined) return method.passwordHash;
      return hasher.hash(method.plainTextPassword!, { background: true });
    }),
  );
}

function userRows(users: ImportUser[], hashes: (string | null)[]): NewUserRows {
  const rows: NewUserRows = {
    userIds: [],
    recipeIds: [],
    timesJoined: [],
    emails: [],
    phoneNumbers: [],
    thirdPartyIds: [],
    thirdPartyUserIds: [],
    passwordHashes: hashes,
  };
  for (const {
    id,
    loginMethods: [method],
  } of users) {
    rows.userIds.push(id);
    rows.recipeIds.push(method.recipeId);
    rows.timesJoined.push(method.timeJoinedInMSSinceEpoch);
    rows.emails.push(method.email ?? null);
    rows.phoneNumbers.push(method.phoneNumber ?? null);
    rows.thirdPartyIds.push(method.thirdPartyId ?? null);
    rows.thirdPartyUserIds.push(method.thirdPartyUserId ?? null);
  }
  return rows;
}

async function insertDependents(db: Queryable, users: ImportUser[]): Promise<void> {
  const verified = { ids: [] as string[], emails: [] as string[] };
  const metadata = { ids: [] as string[], values: [] as string[] };
  const roles = { ids: [] as string[], tenants: [] as string[], roles: [] as string[] };
  for (const user of users) {
    const method = user.loginMethods[0];
    if (method.isVerified && method.email !== undefined) {
      verified.ids.push(user.id);
      verified.emails.push(method.email);
    }
    if (user.userMetadata !== undefined) {
      metadata.ids.push(user.id);
      metadata.values.push(JSON.stringify(user.userMetadata));
    }
    // A role listed twice for one user is one assignment.
    const assigned = new Set<string>();
    for (const { role, tenantIds } of user.userRoles ?? []) {
      for (const tenantId of tenantIds) {
        if (assigned.has(`${tenantId}\u0000${role}`)) continue;
        assigned.add(`${tenantId}\u0000${role}`);
        roles.ids.push(user.id);
        roles.tenants.push(tenantId);
        roles.roles.push(role);
      }
    }
  }
  await insertEmailVerifications(db, verified.ids, verified.emails);
  await insertUserMetadata(db, metadata.ids, metadata.values);
  await insertUserRoles(db, roles.ids, roles.tenants, roles.roles);
}
