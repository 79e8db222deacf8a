import type { Queryable } from '../../db/pool.js';
import { userColumns, userFrom, type LoginMethodRow } from '../../users/repository.js';
import { uniqueViolationOf } from '../../db/pg-errors.js';

export interface NewEmailPasswordUser {
  userId: string;
  tenantId: string;
  email: string;
  passwordHash: string;
  timeJoined: number;
}

// The row a statement just wrote: a new user has no id mapping yet, and the outer query of a data-modifying
// CTE cannot see the written row, so these columns come from RETURNING itself.
const returnedUserColumns = `user_id, tenant_id, recipe_id, time_joined, email, phone_number, third_party_id,
  third_party_user_id`;

const emailPasswordConflict = `ON CONFLICT (tenant_id, email) WHERE recipe_id = 'emailpassword'`;

/**
 * Creates the user, or replaces the hash of the email-password user already holding this email, in one
 * statement: concurrent imports of one email serialise on the unique index instead of failing on it.
 * The new id only survives an insert, so `user_id <> $1` tells an existing user apart.
 */
export async function upsertEmailPasswordUser(
  db: Queryable,
  user: NewEmailPasswordUser,
  // A lazy-migration pointer only replaces another pointer: re-running an import must not undo an adoption.
  keepRealHash = false,
): Promise<{ row: LoginMethodRow; existed: boolean }> {
  // Most imports create a user, and that insert needs no join; only a re-import pays for the upsert below.
  const created = await insertEmailPasswordUser(db, user, false);
  if (created) return { row: created, existed: false };
  const { rows } = await db.query<LoginMethodRow & { existed: boolean }>(
    `WITH u AS (
       INSERT INTO users (user_id, tenant_id, recipe_id, time_joined, email, password_hash)
       VALUES ($1, $2, 'emailpassword', $3, $4, $5)
       ${emailPasswordConflict} DO UPDATE SET password_hash = CASE
         WHEN $6::boolean AND users.password_hash NOT LIKE '$lazy$%' THEN users.password_hash ELSE EXCLUDED.password_hash END
       RETURNING ${returnedUserColumns}, user_id <> $1 AS existed)
     SELECT ${userColumns}, u.existed FROM u LEFT JOIN user_id_mappings m ON m.user_id = u.user_id`,
    [user.userId, user.tenantId, user.timeJoined, user.email, user.passwordHash, keepRealHash],
  );
  const { existed, ...row } = rows[0];
  return { row, existed };
}

/** Undefined when the email is taken; `verified` marks the email verified in the same statement. */
export async function insertEmailPasswordUser(
  db: Queryable,
  user: NewEmailPasswordUser,
  verified: boolean,
): Promise<LoginMethodRow | undefined> {
  const { rows } = await db.query<LoginMethodRow>(
    `WITH u AS (
       INSERT INTO users (user_id, tenant_id, recipe_id, time_joined, email, password_hash)
       VALUES ($1, $2, 'emailpassword', $3, $4, $5)
       ${emailPasswordConflict} DO NOTHING
       RETURNING ${returnedUserColumns}),
     v AS (INSERT INTO email_verifications (user_id, email) SELECT user_id, email FROM u WHERE $6::boolean)
     SELECT ${returnedUserColumns}, NULL::text AS external_user_id, $6::boolean AS verified, false AS in_primary_user FROM u`,
    [user.userId, user.tenantId, user.timeJoined, user.email, user.passwordHash, verified],
  );
  return rows[0];
}

export async function findEmailPasswordUserByEmail(db: Queryable, tenantId: string, email: string): Promise<LoginMethodRow | undefined> {
  const { rows } = await db.query<LoginMethodRow>(
    `SELECT ${userColumns} FROM ${userFrom} WHERE u.tenant_id = $1 AND u.email = $2 AND u.recipe_id = 'emailpassword'`,
    [tenantId, email],
  );
  return rows[0];
}

/** The user and its stored hash, for sign-in only; the hash never leaves the service. */
export async function findEmailPasswordCredentials(
  db: Queryable,
  tenantId: string,
  email: string,
): Promise<{ row: LoginMethodRow; passwordHash: string } | undefined> {
  const { rows } = await db.query<LoginMethodRow & { password_hash: string }>(
    `SELECT ${userColumns}, u.password_hash FROM ${userFrom}
     WHERE u.tenant_id = $1 AND u.email = $2 AND u.recipe_id = 'emailpassword'`,
    [tenantId, email],
  );
  if (rows.length === 0) return undefined;
  const { password_hash: passwordHash, ...row } = rows[0];
  return { row, passwordHash };
}

/** Only replaces the hash that was verified, so a password changed meanwhile is never overwritten. */
export async function replacePasswordHash(db: Queryable, userId: string, oldHash: string, newHash: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE users SET password_hash = $3 WHERE user_id = $1 AND recipe_id = 'emailpassword' AND password_hash = $2`,
    [userId, oldHash, newHash],
  );
  return rowCount === 1;
}

export type UpdateCredentialsResult = 'OK' | 'UNKNOWN_USER' | 'EMAIL_TAKEN' | 'EMAIL_HELD_BY_ANOTHER_PRIMARY_USER';

/**
 * Sets whichever of email and hash is given; another email-password user holding the email is EMAIL_TAKEN, and a
 * linked login method taking an email another primary user holds is EMAIL_HELD_BY_ANOTHER_PRIMARY_USER.
 */
export async function updateEmailPasswordUser(
  db: Queryable,
  userId: string,
  changes: { email?: string; passwordHash?: string },
  // Only while the user still has this email (a password reset); UNKNOWN_USER otherwise.
  currentEmail?: string,
): Promise<UpdateCredentialsResult> {
  try {
    const { rowCount } = await db.query(
      `UPDATE users SET email = coalesce($2, email), password_hash = coalesce($3, password_hash)
       WHERE user_id = $1 AND recipe_id = 'emailpassword' AND ($4::text IS NULL OR email = $4)`,
      [userId, changes.email ?? null, changes.passwordHash ?? null, currentEmail ?? null],
    );
    return rowCount === 1 ? 'OK' : 'UNKNOWN_USER';
  } catch (error) {
    const violated = uniqueViolationOf(error);
    if (violated === 'users__emailpassword_email_key') return 'EMAIL_TAKEN';
    if (violated === 'primary_account_infos__info_key') return 'EMAIL_HELD_BY_ANOTHER_PRIMARY_USER';
    throw error;
  }
}
