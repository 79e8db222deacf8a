import type pg from 'pg';
import { coreError } from '../errors.js';
import { isTransient, uniqueViolationOf } from '../db/pg-errors.js';
import { withTransaction } from '../db/transaction.js';
import type { ServiceDependencies } from '../service-deps.js';
import { findUsersByGroupIds, resolveUserId, type StoredUser } from '../users/repository.js';
import {
  countLoginMethods,
  findAccountInfoConflict,
  findExternalId,
  findLinkState,
  lockGroups,
  moveLoginMethod,
  setGroupsPrimary,
  type ConflictKind,
  type LinkState,
} from './repository.js';
import { deleteLoginMethod } from '../users/login-method-repository.js';
import { deleteSessionsOfLoginMethod } from '../recipes/session/repository.js';

const conflictDescriptions: Record<ConflictKind, string> = {
  email: "This user's email is already associated with another user ID",
  phone: "This user's phone number is already associated with another user ID",
  tparty: "This user's third party login is already associated with another user ID",
};

type AccountInfoConflict = {
  status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR';
  primaryUserId: string;
  description: string;
};
type LinkedElsewhere = {
  status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR';
  primaryUserId: string;
  description: string;
};
type NotPrimary = { status: 'INPUT_USER_IS_NOT_A_PRIMARY_USER' };
type LinkedToAnother = {
  status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR';
  primaryUserId: string;
  description: string;
};

export type CanCreatePrimaryResult = { status: 'OK'; wasAlreadyAPrimaryUser: boolean } | LinkedElsewhere | AccountInfoConflict;
export type CreatePrimaryResult =
  { status: 'OK'; wasAlreadyAPrimaryUser: boolean; user: StoredUser } | LinkedElsewhere | AccountInfoConflict;
export type CanLinkResult = { status: 'OK'; accountsAlreadyLinked: boolean } | NotPrimary | LinkedToAnother | AccountInfoConflict;
export type LinkResult =
  | { status: 'OK'; accountsAlreadyLinked: boolean; user: StoredUser }
  | NotPrimary
  | (LinkedToAnother & { user: StoredUser })
  | AccountInfoConflict;
export type UnlinkResult = { status: 'OK'; wasRecipeUserDeleted: boolean; wasLinked: boolean };

// A reservation taken by a concurrent transaction after our check: the operation runs again and sees it.
const maxAttempts = 5;

/** Account linking (AL-5 to AL-9): each decision is taken inside the transaction that carries it out. */
export class AccountLinkingService {
  constructor(private readonly deps: ServiceDependencies) {}

  // AL-4: a recipeUserId names a login method (a retained group id does not); internal id first, then external.
  private async resolveLoginMethod(db: pg.PoolClient | pg.Pool, id: string, lock = false): Promise<LinkState> {
    const userId = await resolveUserId(db, id);
    const state = userId === undefined ? undefined : await findLinkState(db, userId, lock);
    if (!state?.is_login_method) throw coreError('UNKNOWN_USER_ID_PROVIDED');
    return state;
  }

  // AL-4: a primaryUserId names a user through any of its ids.
  private async resolveGroup(db: pg.PoolClient | pg.Pool, id: string): Promise<LinkState> {
    const userId = await resolveUserId(db, id);
    const state = userId === undefined ? undefined : await findLinkState(db, userId);
    if (!state) throw coreError('UNKNOWN_USER_ID_PROVIDED');
    return state;
  }

  private async conflictOf(
    db: pg.PoolClient | pg.Pool,
    userId: string,
    exceptGroupId: string | null,
  ): Promise<AccountInfoConflict | undefined> {
    const conflict = await findAccountInfoConflict(db, userId, exceptGroupId);
    if (!conflict) return undefined;
    return {
      status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: await findExternalId(db, conflict.group_id),
      description: conflictDescriptions[conflict.kind],
    };
  }

  private async userOf(db: pg.PoolClient | pg.Pool, groupId: string): Promise<StoredUser> {
    const [user] = await findUsersByGroupIds(db, [groupId]);
    return user;
  }

  // The AL-5 decision for a locked or read-only state.
  private async primaryDecision(db: pg.PoolClient | pg.Pool, state: LinkState): Promise<CanCreatePrimaryResult> {
    if (state.is_primary && state.group_id === state.user_id) return { status: 'OK', wasAlreadyAPrimaryUser: true };
    if (state.is_primary) {
      return {
        status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR',
        primaryUserId: await findExternalId(db, state.group_id),
        description: 'This user ID is already linked to another user ID',
      };
    }
    return (await this.conflictOf(db, state.user_id, null)) ?? { status: 'OK', wasAlreadyAPrimaryUser: false };
  }

  async canCreatePrimaryUser(recipeUserId: string): Promise<CanCreatePrimaryResult> {
    const state = await this.resolveLoginMethod(this.deps.pool, recipeUserId);
    return this.primaryDecision(this.deps.pool, state);
  }

  async createPrimaryUser(recipeUserId: string): Promise<CreatePrimaryResult> {
    return this.retrying(async (tx) => {
      const state = await this.lockedLoginMethod(tx, recipeUserId, []);
      const decision = await this.primaryDecision(tx, state);
      if (decision.status !== 'OK') return decision;
      if (!decision.wasAlreadyAPrimaryUser) await setGroupsPrimary(tx, [state.group_id], true);
      return { ...decision, user: await this.userOf(tx, state.group_id) };
    });
  }

  // The AL-7 decision; `target` is the group primaryUserId resolved to.
  private async linkDecision(
    db: pg.PoolClient | pg.Pool,
    recipe: LinkState,
    target: { group_id: string; is_primary: boolean },
  ): Promise<CanLinkResult> {
    if (!target.is_primary) return { status: 'INPUT_USER_IS_NOT_A_PRIMARY_USER' };
    if (recipe.is_primary) {
      if (recipe.group_id === target.group_id) return { status: 'OK', accountsAlreadyLinked: true };
      return {
        status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
        primaryUserId: await findExternalId(db, recipe.group_id),
        description: 'The input recipe user ID is already linked to another user ID',
      };
    }
    return (await this.conflictOf(db, recipe.user_id, target.group_id)) ?? { status: 'OK', accountsAlreadyLinked: false };
  }

  async canLinkAccounts(recipeUserId: string, primaryUserId: string): Promise<CanLinkResult> {
    const recipe = await this.resolveLoginMethod(this.deps.pool, recipeUserId);
    const target = await this.resolveGroup(this.deps.pool, primaryUserId);
    return this.linkDecision(this.deps.pool, recipe, target);
  }

  async linkAccounts(recipeUserId: string, primaryUserId: string): Promise<LinkResult> {
    return this.retrying(async (tx) => {
      const target = await this.resolveGroup(tx, primaryUserId);
      const recipe = await this.lockedLoginMethod(tx, recipeUserId, [target.group_id]);
      const locked = await lockGroups(tx, [target.group_id]);
      const decision = await this.linkDecision(tx, recipe, { group_id: target.group_id, is_primary: locked.get(target.group_id) ?? false });
      if (decision.status === 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR') {
        return { ...decision, user: await this.userOf(tx, recipe.group_id) };
      }
      if (decision.status !== 'OK') return decision;
      if (!decision.accountsAlreadyLinked) {
        await moveLoginMethod(tx, recipe.user_id, recipe.group_id, target.group_id);
        const ended = await deleteSessionsOfLoginMethod(tx, recipe.user_id);
        this.deps.log.info({ recipeUserId: recipe.user_id, primaryUserId: target.group_id, ended }, 'login method linked');
      }
      return { ...decision, user: await this.userOf(tx, target.group_id) };
    });
  }

  async unlinkAccount(recipeUserId: string): Promise<UnlinkResult> {
    return this.retrying(async (tx) => {
      const state = await this.lockedLoginMethod(tx, recipeUserId, []);
      if (!state.is_primary) return { status: 'OK', wasRecipeUserDeleted: false, wasLinked: false };
      const result = await this.leaveGroup(tx, state);
      // Whichever way it left, its sessions named the group it left (the reference revokes them in every case).
      await deleteSessionsOfLoginMethod(tx, state.user_id);
      return result;
    });
  }

  private async leaveGroup(tx: pg.PoolClient, state: LinkState): Promise<UnlinkResult> {
    if (state.group_id !== state.user_id) {
      await moveLoginMethod(tx, state.user_id, state.group_id, state.user_id);
      return { status: 'OK', wasRecipeUserDeleted: false, wasLinked: true };
    }
    if ((await countLoginMethods(tx, state.group_id)) === 1) {
      await setGroupsPrimary(tx, [state.group_id], false);
      return { status: 'OK', wasRecipeUserDeleted: false, wasLinked: true };
    }
    // Its id keeps naming the group; removing the login method is the only way to leave (AL-9 case 3b).
    await deleteLoginMethod(tx, state.user_id);
    return { status: 'OK', wasRecipeUserDeleted: true, wasLinked: true };
  }

  // Locks the login method's id row and its group (with `others`, in id order), then reads its state again: a
  // concurrent link may have moved it between the first read and the lock.
  private async lockedLoginMethod(tx: pg.PoolClient, id: string, others: string[]): Promise<LinkState> {
    for (;;) {
      const seen = await this.resolveLoginMethod(tx, id);
      await lockGroups(tx, [seen.group_id, ...others]);
      const state = await this.resolveLoginMethod(tx, id, true);
      if (state.group_id === seen.group_id) return state;
    }
  }

  private async retrying<T>(operation: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await withTransaction(this.deps.pool, operation);
      } catch (error) {
        const raced = uniqueViolationOf(error) === 'primary_account_infos__info_key' || isTransient(error);
        if (!raced || attempt === maxAttempts) throw error;
      }
    }
  }
}
