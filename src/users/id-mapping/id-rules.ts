import type { Queryable } from '../../db/pool.js';
import { findIdClashes } from './repository.js';

// One id names one user: an external id may not be another user's id, and a new user's id may not be another
// user's external id. Otherwise a sign-in shows one user another's id, and every route taking that id
// (GET /user/id, POST /user/remove) reaches the other user. POST /recipe/userid/map and every bulk import path (the
// queue, importNow, /bulk-import/import, the dry run, and so the migration command) ask this one function up front;
// migration 0016 holds the same rule in the database for whatever gets past the check (a concurrent writer).
export interface IdClashes {
  /** The would-be external ids that are user ids. */
  externalIdsNamingUsers: Set<string>;
  /** The would-be user ids that are external ids. */
  userIdsUsedAsExternalIds: Set<string>;
}

export async function findIdClashesOf(db: Queryable, ids: { externalUserIds: string[]; userIds: string[] }): Promise<IdClashes> {
  const clashes: IdClashes = { externalIdsNamingUsers: new Set(), userIdsUsedAsExternalIds: new Set() };
  for (const { kind, id } of await findIdClashes(db, ids.externalUserIds, ids.userIds)) {
    (kind === 'USER_ID' ? clashes.externalIdsNamingUsers : clashes.userIdsUsedAsExternalIds).add(id);
  }
  return clashes;
}

/** Whether an external id names a user, and so may not be given to another one unless the mapping is forced. */
export async function externalIdNamesUser(db: Queryable, externalUserId: string): Promise<boolean> {
  const { externalIdsNamingUsers } = await findIdClashesOf(db, { externalUserIds: [externalUserId], userIds: [] });
  return externalIdsNamingUsers.has(externalUserId);
}
