import type { PerUserStore } from '../../users/per-user-store.js';

export const userMetadataStore: PerUserStore = {
  recipe: 'UserMetadata',
  async holdsDataOf(db, userIds) {
    const { rows } = await db.query<{ held: boolean }>(
      'SELECT EXISTS (SELECT 1 FROM user_metadata WHERE user_id = ANY($1::text[])) AS held',
      [userIds],
    );
    return rows[0].held;
  },
  async removeDataOf(db, userIds) {
    await db.query('DELETE FROM user_metadata WHERE user_id = ANY($1::text[])', [userIds]);
  },
};
