import type { Queryable } from '../../db/pool.js';
import { uniqueViolationOf } from '../../db/pg-errors.js';

// All SQL of the dashboard's users and sessions (migration 0041). Sessions are found by the SHA-256 digest of their
// id; the id itself is never stored.

export interface DashboardUserRow {
  user_id: string;
  email: string;
  password_hash: string;
  time_joined: number;
}

export interface DashboardSessionRow {
  user_id: string;
  session_id_hash: Buffer;
  time_created: number;
  expiry: number;
}

const userColumns = 'user_id::text AS user_id, email, password_hash, time_joined::float8 AS time_joined';
const sessionColumns = 'user_id::text AS user_id, session_id_hash, time_created::float8 AS time_created, expiry::float8 AS expiry';

/** false when the email is taken. */
export async function insertUser(db: Queryable, row: DashboardUserRow): Promise<boolean> {
  try {
    await db.query('INSERT INTO dashboard_users (user_id, email, password_hash, time_joined) VALUES ($1, $2, $3, $4)', [
      row.user_id,
      row.email,
      row.password_hash,
      row.time_joined,
    ]);
    return true;
  } catch (error) {
    if (uniqueViolationOf(error) === 'dashboard_users__email_key') return false;
    throw error;
  }
}

export async function findUserByEmail(db: Queryable, email: string): Promise<DashboardUserRow | undefined> {
  const { rows } = await db.query<DashboardUserRow>(`SELECT ${userColumns} FROM dashboard_users WHERE email = $1`, [email]);
  return rows[0];
}

// A user id that is not a UUID names no user (the column is uuid; comparing as text keeps any string a plain miss).
export async function findUserById(db: Queryable, userId: string): Promise<DashboardUserRow | undefined> {
  const { rows } = await db.query<DashboardUserRow>(`SELECT ${userColumns} FROM dashboard_users WHERE user_id::text = $1`, [userId]);
  return rows[0];
}

export async function listUsers(db: Queryable): Promise<DashboardUserRow[]> {
  const { rows } = await db.query<DashboardUserRow>(`SELECT ${userColumns} FROM dashboard_users ORDER BY time_joined, email`);
  return rows;
}

export type UpdateOutcome = 'UPDATED' | 'EMAIL_TAKEN';

/**
 * Changes the email and/or the password hash of one user and ends all its sessions, in the caller's transaction.
 * A taken email changes nothing.
 */
export async function updateUser(
  db: Queryable,
  userId: string,
  changes: { email?: string; passwordHash?: string },
): Promise<UpdateOutcome> {
  try {
    await db.query(
      `UPDATE dashboard_users SET email = COALESCE($2, email), password_hash = COALESCE($3, password_hash) WHERE user_id::text = $1`,
      [userId, changes.email ?? null, changes.passwordHash ?? null],
    );
  } catch (error) {
    if (uniqueViolationOf(error) === 'dashboard_users__email_key') return 'EMAIL_TAKEN';
    throw error;
  }
  await db.query('DELETE FROM dashboard_sessions WHERE user_id::text = $1', [userId]);
  return 'UPDATED';
}

/** Sessions go with the user (foreign key, ON DELETE CASCADE). */
export async function deleteUserById(db: Queryable, userId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM dashboard_users WHERE user_id::text = $1', [userId]);
  return (rowCount ?? 0) > 0;
}

export async function deleteUserByEmail(db: Queryable, email: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM dashboard_users WHERE email = $1', [email]);
  return (rowCount ?? 0) > 0;
}

export async function insertSession(db: Queryable, row: DashboardSessionRow): Promise<void> {
  await db.query('INSERT INTO dashboard_sessions (session_id_hash, user_id, time_created, expiry) VALUES ($1, $2, $3, $4)', [
    row.session_id_hash,
    row.user_id,
    row.time_created,
    row.expiry,
  ]);
}

/** The email of the user a session belongs to, while the session is valid at `now`. */
export async function findSessionEmail(db: Queryable, sessionIdHash: Buffer, now: number): Promise<string | undefined> {
  const { rows } = await db.query<{ email: string }>(
    `SELECT u.email FROM dashboard_sessions s JOIN dashboard_users u ON u.user_id = s.user_id
      WHERE s.session_id_hash = $1 AND s.expiry > $2`,
    [sessionIdHash, now],
  );
  return rows[0]?.email;
}

export async function deleteSession(db: Queryable, sessionIdHash: Buffer): Promise<void> {
  await db.query('DELETE FROM dashboard_sessions WHERE session_id_hash = $1', [sessionIdHash]);
}

export async function listSessions(db: Queryable, userId: string, now: number): Promise<DashboardSessionRow[]> {
  const { rows } = await db.query<DashboardSessionRow>(
    `SELECT ${sessionColumns} FROM dashboard_sessions WHERE user_id::text = $1 AND expiry > $2 ORDER BY time_created`,
    [userId, now],
  );
  return rows;
}

/** Deletes up to `limit` sessions expired at `now`; the count deleted. */
export async function deleteExpiredSessions(db: Queryable, now: number, limit: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM dashboard_sessions WHERE session_id_hash IN
       (SELECT session_id_hash FROM dashboard_sessions WHERE expiry <= $1 LIMIT $2)`,
    [now, limit],
  );
  return rowCount ?? 0;
}
