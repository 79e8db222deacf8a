import type { Queryable } from '../db/pool.js';
import { resolveUserId } from './repository.js';

/**
 * POST /user/remove (AL-10.8). With removeAllLinkedAccounts every login method of the user goes, and with the last
 * one the group and everything keyed by its ids (the users triggers of migration 0011 do that part). Without it
 * only the named login method goes; a primary login method's id then stays as the retained group id, mapping and
 * data included, while other login methods remain. A retained id named alone has nothing left to delete.
 */
export async function removeUser(db: Queryable, id: string, removeAllLinkedAccounts: boolean): Promise<boolean> {
  const userId = await resolveUserId(db, id);
  if (userId === undefined) return false;
  const { rowCount } = removeAllLinkedAccounts
    ? await db.query(
        `DELETE FROM users WHERE user_id = ANY(ARRAY(
           SELECT i.user_id FROM user_ids i WHERE i.group_id = (SELECT group_id FROM user_ids WHERE user_id = $1)))`,
        [userId],
      )
    : await db.query('DELETE FROM users WHERE user_id = $1', [userId]);
  return (rowCount ?? 0) > 0;
}
