import type { Queryable } from '../../db/pool.js';
import type { StoredAlgorithm } from './recovery-code-format.js';

export interface RecoveryCodeRow {
  id: number;
  hashing_algorithm: StoredAlgorithm;
  code_hash: string;
  salt: string | null;
  used_at: number | null;
}

export interface NewRecoveryCode {
  userId: string;
  hashingAlgorithm: StoredAlgorithm;
  hash: string;
  salt: string | null;
  usedAt: number | null;
  createdAt: number;
}

/** One statement for any number of codes (bulk import and the import/generate routes). */
export async function insertRecoveryCodes(db: Queryable, codes: NewRecoveryCode[]): Promise<void> {
  if (codes.length === 0) return;
  const column = <K extends keyof NewRecoveryCode>(key: K) => codes.map((code) => code[key]);
  await db.query(
    `INSERT INTO recovery_codes (user_id, hashing_algorithm, code_hash, salt, used_at, created_at)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[])`,
    [column('userId'), column('hashingAlgorithm'), column('hash'), column('salt'), column('usedAt'), column('createdAt')],
  );
}

export async function findRecoveryCodes(db: Queryable, userId: string): Promise<RecoveryCodeRow[]> {
  const { rows } = await db.query<RecoveryCodeRow>(
    'SELECT id, hashing_algorithm, code_hash, salt, used_at FROM recovery_codes WHERE user_id = $1 ORDER BY id',
    [userId],
  );
  return rows;
}

/** Spends a code: true only for the call that set used_at (single use even against a concurrent duplicate). */
export async function markRecoveryCodeUsed(db: Queryable, id: number, now: number): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE recovery_codes SET used_at = $2 WHERE id = $1 AND used_at IS NULL', [id, now]);
  return (rowCount ?? 0) > 0;
}

export async function countUnusedRecoveryCodes(db: Queryable, userId: string): Promise<number> {
  const { rows } = await db.query<{ count: string }>('SELECT count(*) FROM recovery_codes WHERE user_id = $1 AND used_at IS NULL', [
    userId,
  ]);
  return Number(rows[0].count);
}

export async function deleteRecoveryCodes(db: Queryable, userId: string): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM recovery_codes WHERE user_id = $1', [userId]);
  return rowCount ?? 0;
}
