import type { PerUserStore } from '../../users/per-user-store.js';
import { deleteSessionsOfLoginMethods, deleteSessionsOfUsers } from './repository.js';

// A session stores the id form it was created with, so it may hold an external id. Only a live session counts as
// holding the id, as in the reference.
export const sessionStore: PerUserStore = {
  recipe: 'Session',
  async holdsDataOf(db, userIds, now) {
    const { rows } = await db.query<{ held: boolean }>(
      'SELECT EXISTS (SELECT 1 FROM session_info WHERE user_id = ANY($1::text[]) AND expires_at > $2) AS held',
      [userIds, now],
    );
    return rows[0].held;
  },
  removeDataOf: deleteSessionsOfUsers,
  removeDataOfLoginMethods: deleteSessionsOfLoginMethods,
};
