import type { Queryable } from '../db/pool.js';
import { userColumns, userFrom, type UserRow } from './repository.js';

export type TimeJoinedOrder = 'ASC' | 'DESC';

export interface PageCursor {
  userId: string;
  // Kept as text: a token may carry any 64-bit value, beyond what a JS number holds exactly.
  timeJoined: string;
}

export interface SearchTerms {
  emails: string[];
  phones: string[];
  providers: string[];
}

export interface PageQuery {
  tenantId: string;
  recipeIds: string[] | undefined;
  order: TimeJoinedOrder;
  // Rows to fetch: the caller asks for one more than it returns, to know whether a next page exists.
  fetch: number;
  cursor: PageCursor | undefined;
  search: SearchTerms | undefined;
}

// A small builder so optional filters add numbered parameters without string arithmetic at each call site.
class Conditions {
  readonly values: unknown[] = [];
  readonly parts: string[] = [];
  param(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
  add(sql: string): void {
    this.parts.push(sql);
  }
  where(joiner = ' AND '): string {
    return this.parts.length === 0 ? '' : `WHERE ${this.parts.join(joiner)}`;
  }
}

function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (character) => `\\${character}`);
}

function addSearch(conditions: Conditions, search: SearchTerms): void {
  if (search.emails.length > 0) {
    const prefixes = conditions.param(search.emails.map((term) => `${escapeLike(term)}%`));
    const domains = conditions.param(search.emails.map((term) => `%@${escapeLike(term)}%`));
    conditions.add(`(u.email LIKE ANY(${prefixes}) OR u.email LIKE ANY(${domains}))`);
  }
  if (search.phones.length > 0)
    conditions.add(`u.phone_number LIKE ANY(${conditions.param(search.phones.map((t) => `${escapeLike(t)}%`))})`);
  if (search.providers.length > 0) {
    conditions.add(`u.third_party_id LIKE ANY(${conditions.param(search.providers.map((t) => `${escapeLike(t)}%`))})`);
  }
}

// Keyset pagination over users__time_joined_{asc,desc}_idx; ties on time_joined go by user_id descending in both
// directions. DESC is a plain row comparison on (time_joined DESC, user_id DESC). ASC mixes directions, which
// no row comparison expresses, so the index bound is time_joined >= t and the tie rows are filtered.
export async function findUsersPage(db: Queryable, query: PageQuery): Promise<UserRow[]> {
  const conditions = new Conditions();
  conditions.add(`u.tenant_id = ${conditions.param(query.tenantId)}`);
  if (query.recipeIds) conditions.add(`u.recipe_id = ANY(${conditions.param(query.recipeIds)})`);
  if (query.cursor) {
    const time = conditions.param(query.cursor.timeJoined);
    const id = conditions.param(query.cursor.userId);
    conditions.add(
      query.order === 'DESC'
        ? `(u.time_joined, u.user_id) <= (${time}::bigint, ${id})`
        : `u.time_joined >= ${time}::bigint AND (u.time_joined > ${time}::bigint OR u.user_id <= ${id})`,
    );
  }
  if (query.search) addSearch(conditions, query.search);
  const limit = conditions.param(query.fetch);
  const { rows } = await db.query<UserRow>(
    `SELECT ${userColumns} FROM ${userFrom} ${conditions.where()}
     ORDER BY u.time_joined ${query.order}, u.user_id DESC LIMIT ${limit}`,
    conditions.values,
  );
  return rows;
}

export async function countUsers(db: Queryable, tenantId: string | undefined, recipeIds: string[] | undefined): Promise<number> {
  const conditions = new Conditions();
  if (tenantId !== undefined) conditions.add(`u.tenant_id = ${conditions.param(tenantId)}`);
  if (recipeIds) conditions.add(`u.recipe_id = ANY(${conditions.param(recipeIds)})`);
  const { rows } = await db.query<{ count: number }>(
    `SELECT count(*)::bigint AS count FROM users u ${conditions.where()}`,
    conditions.values,
  );
  return rows[0].count;
}

export interface AccountInfo {
  // Several spellings of one contact: the normalised one and the one an earlier version stored.
  email?: string | readonly string[];
  phoneNumber?: string | readonly string[];
  thirdParty?: { id: string; userId: string };
  // No webauthn recipe here: a credential id is a criterion nothing matches.
  webauthnCredentialId?: string;
}

/** No lookup answers more users than this: an email shared by many third-party accounts must not size the reply. */
export const maxUsersPerLookup = 1000;

// Every user has one login method, so "matches every criterion" is one row matching all of them.
export async function findUsersByAccountInfo(db: Queryable, tenantId: string, info: AccountInfo, union: boolean): Promise<UserRow[]> {
  const criteria = new Conditions();
  if (info.email !== undefined) criteria.add(`u.email = ANY(${criteria.param([info.email].flat())})`);
  if (info.phoneNumber !== undefined) criteria.add(`u.phone_number = ANY(${criteria.param([info.phoneNumber].flat())})`);
  if (info.thirdParty) {
    criteria.add(`(u.recipe_id = 'thirdparty' AND u.third_party_id = ${criteria.param(info.thirdParty.id)}
      AND u.third_party_user_id = ${criteria.param(info.thirdParty.userId)})`);
  }
  if (info.webauthnCredentialId !== undefined) criteria.add('FALSE');
  if (criteria.parts.length === 0) return [];
  const tenant = criteria.param(tenantId);
  const matches = criteria.parts.join(union ? ' OR ' : ' AND ');
  const { rows } = await db.query<UserRow>(
    `SELECT ${userColumns} FROM ${userFrom} WHERE u.tenant_id = ${tenant} AND (${matches})
     ORDER BY u.time_joined ASC, u.user_id DESC LIMIT ${maxUsersPerLookup}`,
    criteria.values,
  );
  return rows;
}
