import type { Queryable } from '../db/pool.js';
import { resolveUserId } from './repository.js';
import { deleteLoginMethods } from './login-method-repository.js';
import { removeDataFromEveryStore, type PerUserStore } from './per-user-store.js';

/**
 * POST /user/remove (AL-10.8). With removeAllLinkedAccounts every login method of the user goes, and with the last
 * one the group and everything keyed by its ids (the users triggers of migration 0011 do that part). Without it
 * only the named login method goes; a primary login method's id then stays as the retained group id, mapping and
 * data included, while other login methods remain. A retained id named alone has nothing left to delete.
 * The sessions of every removed login method are deleted with it.
 *
 * The per-user stores (metadata, roles, TOTP, sessions, ...) are keyed by whichever id the app used (the external
 * one when mapped, M-2.1) and hang off no foreign key, so every store of the list is emptied here for every id that
 * is gone, under it and under its external id (contract M-0, C-Del). The caller runs this in one transaction.
 */
export async function removeUser(
  db: Queryable,
  stores: readonly PerUserStore[],
  id: string,
  removeAllLinkedAccounts: boolean,
): Promise<boolean> {
  const userId = await resolveUserId(db, id);
  if (userId === undefined) return false;
  await lockGroupOf(db, userId);
  // Every id of the group: removing its last login method also removes a retained group id (migration 0011).
  const { rows: keys } = await db.query<{ user_id: string; external_user_id: string | null }>(
    `SELECT i.user_id, m.external_user_id FROM user_ids i LEFT JOIN user_id_mappings m ON m.user_id = i.user_id
      WHERE i.group_id = (SELECT group_id FROM user_ids WHERE user_id = $1)`,
    [userId],
  );
  // The sessions of each removed login method go with it (S-6.4), matched by its id and by its external id (a
  // session stores the form it was created with): the stores keeping such data remove it first.
  const doomed = removeAllLinkedAccounts
    ? 'SELECT i.user_id FROM user_ids i WHERE i.group_id = (SELECT group_id FROM user_ids WHERE user_id = $1)'
    : 'SELECT $1::text AS user_id';
  const { rows: doomedRows } = await db.query<{ user_id: string }>(`SELECT user_id FROM users WHERE user_id = ANY(ARRAY(${doomed}))`, [
    userId,
  ]);
  const doomedIds = doomedRows.map((row) => row.user_id);
  if (doomedIds.length > 0) for (const store of stores) await store.removeDataOfLoginMethods?.(db, doomedIds);
  const removed = doomedIds.length > 0 ? await deleteLoginMethods(db, doomedIds) : 0;
  await removeDataOfGoneIds(db, stores, keys);
  return removed > 0;
}

// In the order account linking and tenant association take them (a login method's id row, then its group), so
// that a removal racing either waits for it instead of deadlocking: every id row of the group, then the group.
async function lockGroupOf(db: Queryable, userId: string): Promise<void> {
  const { rows } = await db.query<{ group_id: string }>(
    `SELECT i.group_id FROM user_ids i WHERE i.group_id = (SELECT group_id FROM user_ids WHERE user_id = $1)
      ORDER BY i.user_id FOR UPDATE`,
    [userId],
  );
  if (rows.length > 0) await db.query('SELECT 1 FROM user_groups WHERE group_id = $1 FOR UPDATE', [rows[0].group_id]);
}

async function removeDataOfGoneIds(
  db: Queryable,
  stores: readonly PerUserStore[],
  keys: { user_id: string; external_user_id: string | null }[],
): Promise<void> {
  const { rows: kept } = await db.query<{ user_id: string }>('SELECT user_id FROM user_ids WHERE user_id = ANY($1::text[])', [
    keys.map((key) => key.user_id),
  ]);
  const stillThere = new Set(kept.map((row) => row.user_id));
  const gone = keys.filter((key) => !stillThere.has(key.user_id));
  const ids = gone.flatMap((key) => (key.external_user_id === null ? [key.user_id] : [key.user_id, key.external_user_id]));
  await removeDataFromEveryStore(db, stores, ids);
}
