import type { Queryable } from '../../db/pool.js';

export async function insertResetToken(
  db: Queryable,
  token: { tokenHash: string; userId: string; email: string; expiresAt: number },
): Promise<void> {
  await db.query('INSERT INTO emailpassword_reset_tokens (token_hash, user_id, email, expires_at) VALUES ($1, $2, $3, $4)', [
    token.tokenHash,
    token.userId,
    token.email,
    token.expiresAt,
  ]);
}

/**
 * Spends a token: when it exists and has not expired, every token of its user is deleted (one reset ends them all)
 * and the user and email it was made for are returned. One statement, so two consumers of one token cannot both win.
 */
export async function consumeResetToken(
  db: Queryable,
  tokenHash: string,
  now: number,
): Promise<{ userId: string; email: string } | undefined> {
  const { rows } = await db.query<{ user_id: string; email: string }>(
    `WITH spent AS (DELETE FROM emailpassword_reset_tokens WHERE token_hash = $1 RETURNING user_id, email, expires_at),
     rest AS (DELETE FROM emailpassword_reset_tokens t USING spent WHERE t.user_id = spent.user_id)
     SELECT user_id, email FROM spent WHERE expires_at > $2`,
    [tokenHash, now],
  );
  return rows[0] ? { userId: rows[0].user_id, email: rows[0].email } : undefined;
}
