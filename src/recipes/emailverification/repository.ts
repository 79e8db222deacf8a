import type { Queryable } from '../../db/pool.js';

// A token creation removes at most this many expired tokens: every creation adds one token, so the expired ones
// are cleared faster than they can pile up, and no request pays for a long backlog.
const EXPIRED_TOKENS_PER_SWEEP = 100;

export async function isEmailVerified(db: Queryable, userId: string, emails: string[]): Promise<boolean> {
  const { rows } = await db.query<{ verified: boolean }>(
    'SELECT EXISTS (SELECT 1 FROM email_verifications WHERE user_id = $1 AND email = ANY($2::text[])) AS verified',
    [userId, emails],
  );
  return rows[0].verified;
}

/** Marks the email verified for the user; already verified is no change. */
export async function markEmailVerified(db: Queryable, userId: string, email: string): Promise<void> {
  await db.query('INSERT INTO email_verifications (user_id, email) VALUES ($1, $2) ON CONFLICT DO NOTHING', [userId, email]);
}

/** For set-based imports: the (user, email) pairs of users created in the same transaction, so nothing conflicts. */
export async function insertEmailVerifications(db: Queryable, userIds: string[], emails: string[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.query('INSERT INTO email_verifications (user_id, email) SELECT * FROM unnest($1::text[], $2::text[])', [userIds, emails]);
}

/**
 * The INSERT marking verified the (user_id, email) rows of `source` (a CTE of the caller's statement) that meet
 * `condition`: a recipe creating a login method with a verified email does both in one statement.
 */
export function verifyEmailsFromSql(source: string, condition: string): string {
  return `INSERT INTO email_verifications (user_id, email) SELECT user_id, email FROM ${source} WHERE ${condition}`;
}

export async function deleteEmailVerifications(db: Queryable, userId: string, emails: string[]): Promise<void> {
  await db.query('DELETE FROM email_verifications WHERE user_id = $1 AND email = ANY($2::text[])', [userId, emails]);
}

export async function insertVerificationToken(
  db: Queryable,
  token: { tokenHash: string; tenantId: string; userId: string; email: string; expiresAt: number },
): Promise<void> {
  await db.query('INSERT INTO email_verification_tokens (token_hash, tenant_id, user_id, email, expires_at) VALUES ($1, $2, $3, $4, $5)', [
    token.tokenHash,
    token.tenantId,
    token.userId,
    token.email,
    token.expiresAt,
  ]);
}

export async function deleteVerificationTokens(db: Queryable, tenantId: string, userId: string, emails: string[]): Promise<void> {
  await db.query('DELETE FROM email_verification_tokens WHERE tenant_id = $1 AND user_id = $2 AND email = ANY($3::text[])', [
    tenantId,
    userId,
    emails,
  ]);
}

/** Every token of the login method in the tenant, whatever its email: the login method left the tenant (M8). */
export async function deleteVerificationTokensOfUserInTenant(db: Queryable, tenantId: string, userId: string): Promise<void> {
  await db.query('DELETE FROM email_verification_tokens WHERE tenant_id = $1 AND user_id = $2', [tenantId, userId]);
}

export async function deleteExpiredVerificationTokens(db: Queryable, now: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM email_verification_tokens WHERE token_hash IN
       (SELECT token_hash FROM email_verification_tokens WHERE expires_at < $1 LIMIT $2)`,
    [now, EXPIRED_TOKENS_PER_SWEEP],
  );
  return rowCount ?? 0;
}

export interface SpentVerificationToken {
  /** The id the app knows: the external one where a mapping exists. */
  userId: string;
  email: string;
  expired: boolean;
}

/**
 * Spends a token of the tenant: every token of its (user, email) in that tenant is deleted, and unless it has expired
 * the pair is marked verified. A token of another tenant is not found, and stays. One statement, so two consumers of
 * one token cannot both win (the second finds it deleted).
 */
export async function consumeVerificationToken(
  db: Queryable,
  tenantId: string,
  tokenHash: string,
  now: number,
): Promise<SpentVerificationToken | undefined> {
  const { rows } = await db.query<{ user_id: string; email: string; expired: boolean }>(
    `WITH spent AS (DELETE FROM email_verification_tokens WHERE token_hash = $1 AND tenant_id = $3
                    RETURNING tenant_id, user_id, email, expires_at),
     rest AS (DELETE FROM email_verification_tokens t USING spent
               WHERE t.tenant_id = spent.tenant_id AND t.user_id = spent.user_id AND t.email = spent.email),
     verified AS (INSERT INTO email_verifications (user_id, email) SELECT user_id, email FROM spent WHERE expires_at >= $2
                  ON CONFLICT DO NOTHING)
     SELECT coalesce(m.external_user_id, spent.user_id) AS user_id, spent.email, spent.expires_at < $2 AS expired
     FROM spent LEFT JOIN user_id_mappings m ON m.user_id = spent.user_id`,
    [tokenHash, now, tenantId],
  );
  return rows[0] && { userId: rows[0].user_id, email: rows[0].email, expired: rows[0].expired };
}
