import type { PerUserStore } from '../../users/per-user-store.js';
import { deleteRolesOfUsers } from './repository.js';

export const userRolesStore: PerUserStore = {
  recipe: 'UserRoles',
  async holdsDataOf(db, userIds) {
    const { rows } = await db.query<{ held: boolean }>('SELECT EXISTS (SELECT 1 FROM user_roles WHERE user_id = ANY($1::text[])) AS held', [
      userIds,
    ]);
    return rows[0].held;
  },
  removeDataOf: deleteRolesOfUsers,
};
