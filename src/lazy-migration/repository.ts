import type pg from 'pg';
import type { Queryable } from '../db/pool.js';
import { withTransaction } from '../db/transaction.js';
import { replacePasswordHashIfUnchanged } from '../users/login-method-repository.js';
import { mergeUserMetadata } from '../recipes/usermetadata/repository.js';
import { isLazyPointerSql, lazySourceSql } from './pointer-sql.js';

/** The mark of docs/mfa-re-enrolment.md: the user had a second factor at the old provider and must enrol one here. */
export interface ReEnrolmentMark {
  required: true;
  factors: string[];
  source: string;
  markedAt: number;
}

/** True when this owner now holds the user's lease (a free one, or one whose holder let it expire). */
export async function acquireLease(db: Queryable, userId: string, owner: string, now: number, ttlMs: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO lazy_migration_leases (user_id, owner, expires_at) VALUES ($1, $2, $3)
     ON CONFLICT (user_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
       WHERE lazy_migration_leases.expires_at < $4`,
    [userId, owner, now + ttlMs, now],
  );
  return rowCount === 1;
}

/** Pushes the end of a lease this owner still holds; false when it is no longer the holder. */
export async function renewLease(db: Queryable, userId: string, owner: string, now: number, ttlMs: number): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE lazy_migration_leases SET expires_at = $3 WHERE user_id = $1 AND owner = $2', [
    userId,
    owner,
    now + ttlMs,
  ]);
  return rowCount === 1;
}

export async function releaseLease(db: Queryable, userId: string, owner: string): Promise<void> {
  await db.query('DELETE FROM lazy_migration_leases WHERE user_id = $1 AND owner = $2', [userId, owner]);
}

/**
 * Takes one of the user's calls to the old provider in the window that holds `now`, in one statement so instances
 * sharing the database never take more than `max` together. When the cap is reached, says when the window ends.
 */
export async function takeLazyAttempt(
  db: Queryable,
  userId: string,
  now: number,
  windowMs: number,
  max: number,
): Promise<{ taken: true } | { taken: false; windowEndsAt: number }> {
  const { rowCount } = await db.query(
    `INSERT INTO lazy_migration_attempts (user_id, window_start, attempts) VALUES ($1, $2, 1)
     ON CONFLICT (user_id) DO UPDATE SET
       window_start = CASE WHEN lazy_migration_attempts.window_start <= $2 - $3 THEN $2 ELSE lazy_migration_attempts.window_start END,
       attempts = CASE WHEN lazy_migration_attempts.window_start <= $2 - $3 THEN 1 ELSE lazy_migration_attempts.attempts + 1 END
     WHERE lazy_migration_attempts.window_start <= $2 - $3 OR lazy_migration_attempts.attempts < $4`,
    [userId, now, windowMs, max],
  );
  if (rowCount === 1) return { taken: true };
  const { rows } = await db.query<{ window_start: string }>('SELECT window_start FROM lazy_migration_attempts WHERE user_id = $1', [
    userId,
  ]);
  return { taken: false, windowEndsAt: Number(rows[0]?.window_start ?? now) + windowMs };
}

/** Gives an attempt back when the old provider never judged the password (unavailable, throttling us, busy). */
export async function returnLazyAttempt(db: Queryable, userId: string): Promise<void> {
  await db.query('UPDATE lazy_migration_attempts SET attempts = attempts - 1 WHERE user_id = $1 AND attempts > 0', [userId]);
}

export async function readPasswordHash(db: Queryable, userId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ password_hash: string | null }>('SELECT password_hash FROM users WHERE user_id = $1', [userId]);
  return rows[0]?.password_hash ?? undefined;
}

/**
 * Replaces the pointer with the new hash only while the user still holds that very pointer (a reset or a hash import
 * that came first wins), records the adoption and drops the lease, in one transaction.
 */
export async function adoptPassword(
  pool: pg.Pool,
  userId: string,
  pointer: string,
  newHash: string,
  owner: string,
  mark?: ReEnrolmentMark,
): Promise<boolean> {
  return withTransaction(pool, async (client) => {
    await client.query(`SET LOCAL identity_core.lazy_via = 'signin'`);
    const adopted = await replacePasswordHashIfUnchanged(client, userId, pointer, newHash);
    await client.query('DELETE FROM lazy_migration_leases WHERE user_id = $1 AND owner = $2', [userId, owner]);
    if (adopted) await client.query('DELETE FROM lazy_migration_attempts WHERE user_id = $1', [userId]);
    if (adopted && mark) await markReEnrolment(client, userId, mark);
    return adopted;
  });
}

/**
 * Merges `mfaReEnrolment` shallowly into the metadata the app reads for this user: under the user's external id
 * when one is mapped (the id the SDK knows), else under the primary user's id.
 */
async function markReEnrolment(client: pg.PoolClient, userId: string, mark: ReEnrolmentMark): Promise<void> {
  const { rows } = await client.query<{ app_user_id: string }>(
    `SELECT coalesce(m.external_user_id, i.group_id) AS app_user_id
     FROM user_ids i LEFT JOIN user_id_mappings m ON m.user_id = i.group_id WHERE i.user_id = $1`,
    [userId],
  );
  await mergeUserMetadata(client, rows[0]?.app_user_id ?? userId, JSON.stringify({ mfaReEnrolment: mark }));
}

export interface SourceProgress {
  source: string;
  pending: number;
  migratedBySignin: number;
  migratedOtherwise: number;
  lastMatchAt: number | null;
}

/** Pending users per source (from the partial index) with the adoptions recorded for each. */
export async function sourceProgress(db: Queryable): Promise<SourceProgress[]> {
  const { rows } = await db.query<{ source: string; pending: string; signin: string; replaced: string; last_match_at: string | null }>(
    `WITH pending AS (
       SELECT ${lazySourceSql('password_hash')} AS source, count(*) AS pending
       FROM users WHERE ${isLazyPointerSql('password_hash')} GROUP BY 1),
     adopted AS (
       SELECT source, count(*) FILTER (WHERE via = 'signin') AS signin, count(*) FILTER (WHERE via = 'replaced') AS replaced,
              max(at) FILTER (WHERE via = 'signin') AS last_match_at
       FROM lazy_migration_events GROUP BY source)
     SELECT coalesce(p.source, a.source) AS source, coalesce(p.pending, 0) AS pending, coalesce(a.signin, 0) AS signin,
            coalesce(a.replaced, 0) AS replaced, a.last_match_at
     FROM pending p FULL JOIN adopted a ON a.source = p.source ORDER BY 1`,
  );
  return rows.map((row) => ({
    source: row.source,
    pending: Number(row.pending),
    migratedBySignin: Number(row.signin),
    migratedOtherwise: Number(row.replaced),
    lastMatchAt: row.last_match_at === null ? null : Number(row.last_match_at),
  }));
}

export interface PendingUser {
  userId: string;
  externalUserId: string | null;
  email: string;
  pointer: string;
  timeJoined: number;
}

/** One page of a source's pending users in user-id order, for a reset campaign; `after` is the last id of the page before. */
export async function listPendingUsers(db: Queryable, source: string, limit: number, after?: string): Promise<PendingUser[]> {
  const { rows } = await db.query<{
    user_id: string;
    external_user_id: string | null;
    email: string;
    password_hash: string;
    time_joined: string;
  }>(
    `SELECT u.user_id, m.external_user_id, u.email, u.password_hash, u.time_joined
     FROM users u LEFT JOIN user_id_mappings m ON m.user_id = u.user_id
     WHERE ${isLazyPointerSql('u.password_hash')} AND ${lazySourceSql('u.password_hash')} = $1 AND ($2::text IS NULL OR u.user_id > $2)
     ORDER BY ${lazySourceSql('u.password_hash')}, u.user_id LIMIT $3`,
    [source, after ?? null, limit],
  );
  return rows.map((row) => ({
    userId: row.user_id,
    externalUserId: row.external_user_id,
    email: row.email,
    pointer: row.password_hash,
    timeJoined: Number(row.time_joined),
  }));
}

export interface DailyAdoptions {
  source: string;
  day: string;
  signin: number;
  replaced: number;
}

/** Adoptions per source and UTC day over the last `days` days. */
export async function adoptionsPerDay(db: Queryable, since: number): Promise<DailyAdoptions[]> {
  const { rows } = await db.query<{ source: string; day: string; signin: string; replaced: string }>(
    `SELECT source, to_char(to_timestamp(at / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
            count(*) FILTER (WHERE via = 'signin') AS signin, count(*) FILTER (WHERE via = 'replaced') AS replaced
     FROM lazy_migration_events WHERE at >= $1 GROUP BY 1, 2 ORDER BY 1, 2`,
    [since],
  );
  return rows.map((row) => ({ source: row.source, day: row.day, signin: Number(row.signin), replaced: Number(row.replaced) }));
}
