import type { Queryable } from '../../db/pool.js';
import { inTenant, userColumns, userFrom, type LoginMethodRow } from '../../users/repository.js';
import {
  insertLoginMethodSql,
  returnedUserColumns,
  updateEmailPasswordLoginMethod,
  upsertEmailPasswordLoginMethod,
} from '../../users/login-method-repository.js';
import { verifyEmailsFromSql } from '../emailverification/repository.js';
import { lazyPointerPattern } from '../../lazy-migration/pointer-sql.js';
import { uniqueViolationOf } from '../../db/pg-errors.js';

export interface NewEmailPasswordUser {
  userId: string;
  tenantId: string;
  email: string;
  passwordHash: string;
  timeJoined: number;
}

/**
 * Creates the user, or replaces the hash of the email-password user already holding this email, in one
 * statement: concurrent imports of one email serialise on the unique index instead of failing on it.
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
  // A concurrent import of the email that committed after the upsert's snapshot was taken: the next one sees it.
  for (;;) {
    const upserted = await upsertEmailPasswordLoginMethod(db, user, keepRealHash ? lazyPointerPattern : undefined);
    if (upserted) {
      const { existed, ...row } = upserted;
      return { row, existed };
    }
  }
}

/** Undefined when the email is taken; `verified` marks the email verified in the same statement. */
export async function insertEmailPasswordUser(
  db: Queryable,
  user: NewEmailPasswordUser,
  verified: boolean,
): Promise<LoginMethodRow | undefined> {
  const { rows } = await db.query<LoginMethodRow>(
    `WITH ${insertLoginMethodSql.emailpassword}
       RETURNING ${returnedUserColumns}),
     u AS (SELECT * FROM lmu),
     v AS (${verifyEmailsFromSql('u', '$6::boolean')})
     SELECT ${returnedUserColumns}, NULL::text AS external_user_id, $6::boolean AS verified, false AS in_primary_user FROM u`,
    [user.userId, user.tenantId, user.timeJoined, user.email, user.passwordHash, verified],
  );
  return rows[0];
}

export async function findEmailPasswordUserByEmail(db: Queryable, tenantId: string, email: string): Promise<LoginMethodRow | undefined> {
  const { rows } = await db.query<LoginMethodRow>(`SELECT ${userColumns} FROM ${userFrom} ${inTenant('emailpassword')} AND lt.email = $2`, [
    tenantId,
    email,
  ]);
  return rows[0];
}

/** The user and its stored hash, for sign-in only; the hash never leaves the service. */
export async function findEmailPasswordCredentials(
  db: Queryable,
  tenantId: string,
  email: string,
): Promise<{ row: LoginMethodRow; passwordHash: string } | undefined> {
  const { rows } = await db.query<LoginMethodRow & { password_hash: string }>(
    `SELECT ${userColumns}, u.password_hash FROM ${userFrom} ${inTenant('emailpassword')} AND lt.email = $2`,
    [tenantId, email],
  );
  if (rows.length === 0) return undefined;
  const { password_hash: passwordHash, ...row } = rows[0];
  return { row, passwordHash };
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
    return (await updateEmailPasswordLoginMethod(db, userId, changes, currentEmail)) ? 'OK' : 'UNKNOWN_USER';
  } catch (error) {
    const violated = uniqueViolationOf(error);
    if (violated === 'login_method_tenants__email_key') return 'EMAIL_TAKEN';
    if (violated === 'primary_account_infos__info_key') return 'EMAIL_HELD_BY_ANOTHER_PRIMARY_USER';
    throw error;
  }
}
