import type { Queryable } from '../db/pool.js';
import { userColumns, type LoginMethodRow, type RecipeId } from './repository.js';

// Every statement that writes the `users` table (one row per login method) is here or built from the text here; the
// recipes, bulk import, lazy migration and account linking call these functions. A statement that also writes
// another table in the same round trip (a CTE) takes this file's fragment for its `users` part.

// The row a statement just wrote: a new user has no id mapping yet, and the outer query of a data-modifying
// CTE cannot see the written row, so these columns come from RETURNING itself. A new login method is in the one
// tenant it is created in.
export const returnedUserColumns = `user_id, tenant_id, ARRAY[tenant_id] AS tenant_ids, recipe_id, time_joined, email, phone_number,
  third_party_id, third_party_user_id`;

// A new login method takes its place in its tenant first (a passwordless one may hit either of two indexes, so it
// names none) (CTE `lmt`): the tenant's unique index there decides, a
// login method that would break it inserts nothing, and concurrent writers of one value wait for each other on that
// index as they used to on `users`. The INSERT into `users` then reads `lmt`; the trigger of migration 0043 finds the
// membership already there.
const emailKey = `(tenant_id, email, recipe_id, (nullif(recipe_id = 'thirdparty', true)))`; // migration 0048
const membershipConflict = {
  emailpassword: emailKey,
  passwordless: '',
  webauthn: emailKey,
  thirdparty: `(tenant_id, third_party_id, third_party_user_id) WHERE recipe_id = 'thirdparty'`,
} as const;

function membershipSql(recipeId: RecipeId, columns: string, values: string): string {
  const conflict = membershipConflict[recipeId];
  return `lmt AS (INSERT INTO login_method_tenants (tenant_id, user_id, recipe_id${columns})
       VALUES ($2, $1, '${recipeId}'${values}) ON CONFLICT ${conflict}${conflict && ' '}DO NOTHING RETURNING user_id)`;
}

/**
 * The CTEs that insert one new login method of a recipe, its values bound to $1.. in the order of the columns: user
 * id, tenant id, time joined, then the recipe's own columns. The caller puts them first in its WITH and adds
 * RETURNING to the last one (`lmu`), whose INSERT writes nothing when the tenant already has the value.
 */
export const insertLoginMethodSql = {
  emailpassword: `${membershipSql('emailpassword', ', email', ', $4')},
     lmu AS (INSERT INTO users (user_id, tenant_id, recipe_id, time_joined, email, password_hash)
       SELECT $1, $2, 'emailpassword', $3::bigint, $4, $5 FROM lmt`,
  passwordless: `${membershipSql('passwordless', ', email, phone_number', ', $4, $5')},
     lmu AS (INSERT INTO users (user_id, tenant_id, recipe_id, time_joined, email, phone_number)
       SELECT $1, $2, 'passwordless', $3::bigint, $4, $5 FROM lmt`,
  webauthn: `${membershipSql('webauthn', ', email', ', $4')},
     lmu AS (INSERT INTO users (user_id, tenant_id, recipe_id, time_joined, email) SELECT $1, $2, 'webauthn', $3::bigint, $4 FROM lmt`,
  thirdparty: `${membershipSql('thirdparty', ', email, third_party_id, third_party_user_id', ', $4, $5, $6')},
     lmu AS (INSERT INTO users (user_id, tenant_id, recipe_id, time_joined, email, third_party_id, third_party_user_id)
       SELECT $1, $2, 'thirdparty', $3::bigint, $4, $5, $6 FROM lmt`,
} as const;

/** The UPDATE of a login method's email ($2) by its id ($1), when it is of this recipe; RETURNING user_id. */
export function updateLoginMethodEmailSql(recipeId: RecipeId): string {
  return `UPDATE users SET email = $2 WHERE user_id = $1 AND recipe_id = '${recipeId}' RETURNING user_id`;
}

/**
 * Replaces the hash of the email-password login method holding this email in the tenant, or inserts it when none
 * does. With `keepHashNotLike`, a stored hash not matching that pattern is kept (a real hash over a pointer).
 * Undefined when a concurrent writer inserted the email after this statement's snapshot: the caller asks again.
 */
export async function upsertEmailPasswordLoginMethod(
  db: Queryable,
  user: { userId: string; tenantId: string; email: string; passwordHash: string; timeJoined: number },
  keepHashNotLike: string | undefined,
): Promise<(LoginMethodRow & { existed: boolean }) | undefined> {
  const { rows } = await db.query<LoginMethodRow & { existed: boolean }>(
    `WITH ${insertLoginMethodSql.emailpassword} RETURNING ${returnedUserColumns}, false AS existed),
     upd AS (UPDATE users SET password_hash = CASE
         WHEN $6::text IS NOT NULL AND users.password_hash NOT LIKE $6 THEN users.password_hash ELSE $5 END
       WHERE NOT EXISTS (SELECT 1 FROM lmt) AND user_id = (SELECT t.user_id FROM login_method_tenants t
         WHERE t.tenant_id = $2 AND t.recipe_id = 'emailpassword' AND t.email = $4)
       RETURNING ${returnedUserColumns}, true AS existed),
     u AS (SELECT * FROM lmu UNION ALL SELECT * FROM upd)
     SELECT ${userColumns}, u.existed FROM u LEFT JOIN user_id_mappings m ON m.user_id = u.user_id`,
    [user.userId, user.tenantId, user.timeJoined, user.email, user.passwordHash, keepHashNotLike ?? null],
  );
  return rows[0];
}

/** Concurrent first sign-ins for one provider account: the tenant's unique index decides, the loser inserts nothing. */
export async function insertThirdPartyLoginMethodIfAbsent(
  db: Queryable,
  user: { userId: string; tenantId: string; thirdPartyId: string; thirdPartyUserId: string; email: string; timeJoined: number },
): Promise<boolean> {
  const { rows } = await db.query<{ n: number }>(
    `WITH ${insertLoginMethodSql.thirdparty} RETURNING user_id) SELECT count(*)::int AS n FROM lmu`,
    [user.userId, user.tenantId, user.timeJoined, user.email, user.thirdPartyId, user.thirdPartyUserId],
  );
  return rows[0].n === 1;
}

export interface NewUserRows {
  userIds: string[];
  // The tenant each login method is created in (users.tenant_id, its first membership by the trigger of migration
  // 0043); null when every one is created in public, which then costs the statement nothing more.
  tenantIds: string[] | null;
  recipeIds: RecipeId[];
  timesJoined: number[];
  emails: (string | null)[];
  phoneNumbers: (string | null)[];
  thirdPartyIds: (string | null)[];
  thirdPartyUserIds: (string | null)[];
  passwordHashes: (string | null)[];
}

// Plain INSERTs for set-based imports: the caller has checked every uniqueness rule up front, and a row that still
// conflicts (a concurrent writer) must fail loudly so that its user is reported, not silently skipped.
export async function insertLoginMethods(db: Queryable, users: NewUserRows): Promise<void> {
  await db.query(
    `INSERT INTO users (user_id, tenant_id, recipe_id, time_joined, email, phone_number, third_party_id, third_party_user_id, password_hash)
     SELECT u.user_id, coalesce(u.tenant_id, 'public'), u.recipe_id, u.time_joined, u.email, u.phone_number, u.third_party_id,
            u.third_party_user_id, u.password_hash
     FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
       AS u(user_id, recipe_id, time_joined, email, phone_number, third_party_id, third_party_user_id, password_hash, tenant_id)`,
    [
      users.userIds,
      users.recipeIds,
      users.timesJoined,
      users.emails,
      users.phoneNumbers,
      users.thirdPartyIds,
      users.thirdPartyUserIds,
      users.passwordHashes,
      users.tenantIds,
    ],
  );
}

/**
 * Puts login methods into further tenants, one statement for a whole import batch (M7's rows, set-based). Plain
 * INSERT, as insertLoginMethods: the caller checked each tenant's unique values up front, and a concurrent writer
 * that took one makes the statement fail on that tenant's unique index.
 */
export async function addLoginMethodsToTenants(db: Queryable, userIds: string[], tenantIds: string[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.query(
    `INSERT INTO login_method_tenants (tenant_id, user_id, recipe_id, email, phone_number, third_party_id, third_party_user_id)
     SELECT k.tenant_id, u.user_id, u.recipe_id, u.email, u.phone_number, u.third_party_id, u.third_party_user_id
       FROM unnest($1::text[], $2::text[]) AS k(user_id, tenant_id)
       CROSS JOIN LATERAL (SELECT * FROM users u WHERE u.user_id = k.user_id) AS u`,
    [userIds, tenantIds],
  );
}

/** Replaces an email-password hash only while it is the one verified, so a password changed meanwhile stays. */
export async function replaceEmailPasswordHash(db: Queryable, userId: string, oldHash: string, newHash: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE users SET password_hash = $3 WHERE user_id = $1 AND recipe_id = 'emailpassword' AND password_hash = $2`,
    [userId, oldHash, newHash],
  );
  return rowCount === 1;
}

/** Replaces the stored hash only while it is still `oldHash` (a lazy pointer being adopted), whatever the recipe. */
export async function replacePasswordHashIfUnchanged(db: Queryable, userId: string, oldHash: string, newHash: string): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE users SET password_hash = $3 WHERE user_id = $1 AND password_hash = $2', [
    userId,
    oldHash,
    newHash,
  ]);
  return rowCount === 1;
}

/** Replaces the stored hash only while it matches the LIKE pattern given (a lazy pointer, completed by an import). */
export async function replacePasswordHashWhileLike(db: Queryable, userId: string, pattern: string, newHash: string): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE users SET password_hash = $2 WHERE user_id = $1 AND password_hash LIKE $3', [
    userId,
    newHash,
    pattern,
  ]);
  return (rowCount ?? 0) > 0;
}

/**
 * Sets whichever of email and hash is given on an email-password login method, only while it still has
 * `currentEmail` when that is given; false when no row matched. Unique violations are the caller's to read.
 */
export async function updateEmailPasswordLoginMethod(
  db: Queryable,
  userId: string,
  changes: { email?: string; passwordHash?: string },
  currentEmail?: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE users SET email = coalesce($2, email), password_hash = coalesce($3, password_hash)
     WHERE user_id = $1 AND recipe_id = 'emailpassword' AND ($4::text IS NULL OR email = $4)`,
    [userId, changes.email ?? null, changes.passwordHash ?? null, currentEmail ?? null],
  );
  return rowCount === 1;
}

export async function updateLoginMethodContacts(
  db: Queryable,
  userId: string,
  email: string | null,
  phoneNumber: string | null,
): Promise<void> {
  await db.query('UPDATE users SET email = $2, phone_number = $3 WHERE user_id = $1', [userId, email, phoneNumber]);
}

export async function updateLoginMethodEmail(db: Queryable, userId: string, email: string): Promise<void> {
  await db.query('UPDATE users SET email = $2 WHERE user_id = $1', [userId, email]);
}

export async function deleteLoginMethod(db: Queryable, userId: string): Promise<void> {
  await db.query('DELETE FROM users WHERE user_id = $1', [userId]);
}

/** How many of the login methods went (ids that are not login methods, such as a retained group id, count none). */
export async function deleteLoginMethods(db: Queryable, userIds: string[]): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM users WHERE user_id = ANY($1::text[])', [userIds]);
  return rowCount ?? 0;
}

/**
 * Puts a login method in a tenant (M7); false when it already was. A value the tenant already has fails on that
 * recipe's unique index of login_method_tenants, one a primary user of the tenant holds on primary_account_infos.
 * The login method is locked against a concurrent delete (whose trigger, migration 0046, removes its memberships).
 */
export async function addLoginMethodToTenant(db: Queryable, tenantId: string, userId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO login_method_tenants (tenant_id, user_id, recipe_id, email, phone_number, third_party_id, third_party_user_id)
     SELECT $1, user_id, recipe_id, email, phone_number, third_party_id, third_party_user_id FROM users WHERE user_id = $2
     FOR KEY SHARE
     ON CONFLICT (tenant_id, user_id) DO NOTHING`,
    [tenantId, userId],
  );
  return rowCount === 1;
}

/** Takes a login method out of a tenant (M8); false when it was not in it. */
export async function removeLoginMethodFromTenant(db: Queryable, tenantId: string, userId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM login_method_tenants WHERE tenant_id = $1 AND user_id = $2', [tenantId, userId]);
  return rowCount === 1;
}
