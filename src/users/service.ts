import { coreError } from '../errors.js';
import { findUserById, type StoredUser } from './repository.js';
import { removeUser } from './remove-user.js';
import { withTransaction } from '../db/transaction.js';
import {
  countUsers,
  findUsersByAccountInfo,
  findUsersPage,
  type AccountInfo,
  type SearchTerms,
  type TimeJoinedOrder,
} from './listing-repository.js';
import { decodePaginationToken, encodePaginationToken } from './pagination-token.js';
import type { ServiceDependencies } from '../service-deps.js';
import type { PerUserStore } from './per-user-store.js';

const defaultPageLimit = 100;
const maxPageLimit = 500;
// A search lifts the 500 cap (contract §8.4.1) but its answer stays bounded: the reference stops each recipe's
// sub-query at 1000 rows, we stop the whole answer there.
const maxSearchLimit = 1000;

export interface ListUsersInput {
  tenantId: string;
  limit: number | undefined;
  timeJoinedOrder: string | undefined;
  paginationToken: string | undefined;
  // Lower-cased auth recipe ids to keep, or undefined for every recipe.
  recipeIds: string[] | undefined;
  search: { email?: string; phone?: string; provider?: string };
}

export type FindUserResult = { status: 'OK'; user: StoredUser } | { status: 'UNKNOWN_USER_ID_ERROR' };
export type ListUsersResult = { status: 'OK'; users: StoredUser[]; nextPaginationToken?: string };
export type CountUsersResult = { status: 'OK'; count: number; approximate?: false; asOf?: number };

// Dashboard search values: ';'-separated terms, lower-cased and trimmed, empties dropped (contract §8.4.1).
function searchTerms(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(';')
    .map((term) => term.toLowerCase().trim())
    .filter((term) => term !== '');
}

function parseSearch(search: ListUsersInput['search']): SearchTerms | undefined {
  const terms = { emails: searchTerms(search.email), phones: searchTerms(search.phone), providers: searchTerms(search.provider) };
  return terms.emails.length + terms.phones.length + terms.providers.length > 0 ? terms : undefined;
}

export class UserService {
  constructor(
    private readonly deps: ServiceDependencies,
    private readonly stores: readonly PerUserStore[],
  ) {}

  async findUser(id: string): Promise<FindUserResult> {
    const user = await findUserById(this.deps.pool, id);
    return user ? { status: 'OK', user } : { status: 'UNKNOWN_USER_ID_ERROR' };
  }

  async listUsersByAccountInfo(tenantId: string, info: AccountInfo, union: boolean): Promise<{ status: 'OK'; users: StoredUser[] }> {
    return { status: 'OK', users: await findUsersByAccountInfo(this.deps.pool, tenantId, info, union) };
  }

  async countUsers(input: {
    tenantId: string | undefined;
    recipeIds: string[] | undefined;
    approximate: boolean;
  }): Promise<CountUsersResult> {
    const count = await countUsers(this.deps.pool, input.tenantId, input.recipeIds);
    // Counting is exact and cheap enough on the indexed table, so an approximate answer is never given.
    return input.approximate ? { status: 'OK', count, approximate: false, asOf: this.deps.clock() } : { status: 'OK', count };
  }

  // Checks in the reference's order: timeJoinedOrder, search terms, limit bounds, then the token.
  async listUsers(input: ListUsersInput): Promise<ListUsersResult> {
    const order = input.timeJoinedOrder ?? 'ASC';
    if (order !== 'ASC' && order !== 'DESC') throw coreError('TIME_JOINED_ORDER');
    const search = parseSearch(input.search);
    if (input.limit !== undefined && input.limit > maxPageLimit && !search) throw coreError('USERS_LIMIT_TOO_HIGH', maxPageLimit);
    if (input.limit !== undefined && input.limit < 1) throw coreError('LIMIT_NOT_POSITIVE');
    const limit = Math.min(input.limit ?? defaultPageLimit, search ? maxSearchLimit : maxPageLimit);

    // A search answers one list, never a next page, so it has no use for a cursor.
    const cursor = input.paginationToken !== undefined && !search ? decodePaginationToken(input.paginationToken) : undefined;
    if (input.paginationToken !== undefined && !search && !cursor) throw coreError('INVALID_PAGINATION_TOKEN');

    const rows = await findUsersPage(this.deps.pool, {
      tenantId: input.tenantId,
      recipeIds: input.recipeIds,
      order: order as TimeJoinedOrder,
      fetch: search ? limit : limit + 1,
      cursor,
      search,
    });
    if (search || rows.length <= limit) return { status: 'OK', users: rows };
    const next = rows[limit];
    return { status: 'OK', users: rows.slice(0, limit), nextPaginationToken: encodePaginationToken(next.group_id, next.time_joined) };
  }

  async removeUser(id: string, removeAllLinkedAccounts: boolean): Promise<{ status: 'OK' }> {
    const removed = await withTransaction(this.deps.pool, (client) => removeUser(client, this.stores, id, removeAllLinkedAccounts));
    if (removed) this.deps.log.info({ userId: id, removeAllLinkedAccounts }, 'user removed');
    return { status: 'OK' };
  }
}
