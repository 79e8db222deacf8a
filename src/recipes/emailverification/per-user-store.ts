import type { PerUserStore } from '../../users/per-user-store.js';

// Verifications and their tokens are keyed by the internal id, a foreign key to users: removal already took them,
// and an external id never holds them unless it is itself a user's id.
export const emailVerificationStore: PerUserStore = {
  recipe: 'EmailVerification',
  async holdsDataOf(db, userIds) {
    const { rows } = await db.query<{ held: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM email_verifications WHERE user_id = ANY($1::text[]))
           OR EXISTS (SELECT 1 FROM email_verification_tokens WHERE user_id = ANY($1::text[])) AS held`,
      [userIds],
    );
    return rows[0].held;
  },
  async removeDataOf(db, userIds) {
    await db.query('DELETE FROM email_verification_tokens WHERE user_id = ANY($1::text[])', [userIds]);
    await db.query('DELETE FROM email_verifications WHERE user_id = ANY($1::text[])', [userIds]);
  },
};
