import type { PerUserStore } from '../../users/per-user-store.js';

// Passkey credentials go with their login method (a foreign key); an account-recovery token may name a retained
// group id, so it goes with the ids that are gone. A pending token is not data that keeps an id in use (§9.3).
export const webauthnRecoveryTokenStore: PerUserStore = {
  recipe: 'WebAuthn',
  async holdsDataOf() {
    return false;
  },
  async removeDataOf(db, userIds) {
    await db.query('DELETE FROM webauthn_recover_tokens WHERE user_id = ANY($1::text[])', [userIds]);
  },
};
