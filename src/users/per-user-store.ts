import type { Queryable } from '../db/pool.js';

/**
 * A store that keeps data under a user id outside the login methods: under whichever id the app used, the external
 * one when mapped (M-2.1), so no foreign key ends it. User removal asks every store to remove the data of the ids
 * that are gone, and removing or creating a user-id mapping without `force` asks each whether it still holds data of
 * the id (§9.1, §9.3). The one list is `src/per-user-stores.ts`.
 */
export interface PerUserStore {
  /** The recipe named by `UserId is already in use in <recipe> recipe`. */
  readonly recipe: string;
  holdsDataOf(db: Queryable, userIds: string[], now: number): Promise<boolean>;
  removeDataOf(db: Queryable, userIds: string[]): Promise<void>;
  /**
   * For data that goes with each removed login method even while its user stays (sessions, S-6.4): called with the
   * ids of the login methods a removal deletes, before they go; the store also matches their external ids.
   */
  removeDataOfLoginMethods?(db: Queryable, userIds: string[]): Promise<void>;
}

/** The recipes of the stores holding data of the id, in the order of the list. */
export async function recipesHoldingDataOf(db: Queryable, stores: readonly PerUserStore[], userId: string, now: number): Promise<string[]> {
  const recipes: string[] = [];
  for (const store of stores) if (await store.holdsDataOf(db, [userId], now)) recipes.push(store.recipe);
  return recipes;
}

export async function removeDataFromEveryStore(db: Queryable, stores: readonly PerUserStore[], userIds: string[]): Promise<void> {
  if (userIds.length === 0) return;
  for (const store of stores) await store.removeDataOf(db, userIds);
}
