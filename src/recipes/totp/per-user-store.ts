import type { PerUserStore } from '../../users/per-user-store.js';

// Devices, the used-code ledger and recovery codes are the TOTP recipe's; the ledger alone (left by a removed
// device) holds nothing the app made, so it does not hold an id in use.
export const totpStore: PerUserStore = {
  recipe: 'TOTP',
  async holdsDataOf(db, userIds) {
    const { rows } = await db.query<{ held: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM totp_devices WHERE user_id = ANY($1::text[]))
           OR EXISTS (SELECT 1 FROM recovery_codes WHERE user_id = ANY($1::text[])) AS held`,
      [userIds],
    );
    return rows[0].held;
  },
  async removeDataOf(db, userIds) {
    for (const table of ['totp_devices', 'totp_used_codes', 'recovery_codes']) {
      await db.query(`DELETE FROM ${table} WHERE user_id = ANY($1::text[])`, [userIds]);
    }
  },
};
