import type { Queryable } from '../db/pool.js';
import { resolveUserId } from './repository.js';

/**
 * POST /user/remove (AL-10.8). With removeAllLinkedAccounts every login method of the user goes, and with the last
 * one the group and everything keyed by its ids (the users triggers of migration 0011 do that part). Without it
 * only the named login method goes; a primary login method's id then stays as the retained group id, mapping and
 * data included, while other login methods remain. A retained id named alone has nothing left to delete.
 * The sessions of every removed login method are deleted with it.
 */
export async function removeUser(db: Queryable, id: string, removeAllLinkedAccounts: boolean): Promise<boolean> {
  const userId = await resolveUserId(db, id);
  if (userId === undefined) return false;
  // The sessions of each removed login method go in the same statement (S-6.4), matched by its id and by its
  // external id: a session stores the form it was created with.
  const doomed = removeAllLinkedAccounts
    ? 'SELECT i.user_id FROM user_ids i WHERE i.group_id = (SELECT group_id FROM user_ids WHERE user_id = $1)'
    : 'SELECT $1::text AS user_id';
  const { rowCount } = await db.query(
    `WITH doomed AS (SELECT user_id FROM users WHERE user_id = ANY(ARRAY(${doomed}))),
     sessions AS (
       DELETE FROM session_info WHERE user_id = ANY(ARRAY(
         SELECT user_id FROM doomed UNION ALL
         SELECT m.external_user_id FROM user_id_mappings m WHERE m.user_id = ANY(ARRAY(SELECT user_id FROM doomed)))))
     DELETE FROM users WHERE user_id = ANY(ARRAY(SELECT user_id FROM doomed))`,
    [userId],
  );
  return (rowCount ?? 0) > 0;
}
