import type { Queryable } from '../db/pool.js';

// Any constant works; with the schema it names one lock per database schema, shared by every core using it.
const keyLockKey = 3567_0014;

/** Serialises key creation between cores on one database, until the transaction ends. */
export async function lockSigningKeys(db: Queryable): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))', [keyLockKey]);
}

export interface DynamicKeyRow {
  created_at_time: number;
  value: string;
}

export async function findDynamicKeysCreatedSince(db: Queryable, since: number): Promise<DynamicKeyRow[]> {
  const { rows } = await db.query<DynamicKeyRow>(
    'SELECT created_at_time, value FROM session_access_token_signing_keys WHERE created_at_time >= $1 ORDER BY created_at_time DESC',
    [since],
  );
  return rows;
}

export async function insertDynamicKey(db: Queryable, createdAt: number, value: string): Promise<void> {
  await db.query('INSERT INTO session_access_token_signing_keys (created_at_time, value) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
    createdAt,
    value,
  ]);
}

export async function deleteDynamicKeysCreatedBefore(db: Queryable, before: number): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM session_access_token_signing_keys WHERE created_at_time < $1', [before]);
  return rowCount ?? 0;
}

export interface StaticKeyRow {
  key_id: string;
  key_string: string;
  created_at: number;
}

export async function findStaticKey(db: Queryable): Promise<StaticKeyRow | undefined> {
  const { rows } = await db.query<StaticKeyRow>(`SELECT key_id, key_string, created_at FROM jwt_signing_keys WHERE algorithm = 'RS256'`);
  return rows[0];
}

export async function insertStaticKey(db: Queryable, keyId: string, keyString: string, createdAt: number): Promise<void> {
  await db.query(
    `INSERT INTO jwt_signing_keys (key_id, key_string, algorithm, created_at) VALUES ($1, $2, 'RS256', $3) ON CONFLICT DO NOTHING`,
    [keyId, keyString, createdAt],
  );
}

/** The stored secret of this name, creating it with `value` when there is none yet; every core gets the same one. */
export async function findOrInsertSecret(db: Queryable, name: string, value: string, now: number): Promise<string> {
  const { rows } = await db.query<{ value: string }>(
    `WITH inserted AS (
       INSERT INTO key_value (name, value, created_at_time) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING RETURNING value)
     SELECT value FROM inserted UNION ALL SELECT value FROM key_value WHERE name = $1`,
    [name, value, now],
  );
  return rows[0].value;
}
