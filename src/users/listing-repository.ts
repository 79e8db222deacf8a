import type { Queryable } from '../db/pool.js';
import { findUsersByGroupIds, selectUsers, type StoredUser } from './repository.js';
import type { PageToken } from './pagination-token.js';

export type TimeJoinedOrder = 'ASC' | 'DESC';

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
  // The token's id is a user group's id, its time the group's time_joined.
  cursor: PageToken | undefined;
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
  /**
   * `column IN ($a, $b, …)`, one parameter per value: an array parameter is planned as ten rows, which made every
   * call of the prepared statement plan itself anew (a custom plan costs more than running it).
   */
  inList(column: string, values: readonly string[]): string {
    return values.length === 0 ? 'FALSE' : `${column} IN (${values.map((value) => this.param(value)).join(', ')})`;
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

// A search param matches a user when any of its login methods matches it; params are AND-ed (AL-10.6).
function anyLoginMethod(condition: string): string {
  return `EXISTS (SELECT 1 FROM user_ids i JOIN users u ON u.user_id = i.user_id WHERE i.group_id = g.group_id AND ${condition})`;
}

// A user is in a tenant when any of its login methods is (contract-multitenancy T-3).
function inTenant(tenant: string): string {
  return anyLoginMethod(`EXISTS (SELECT 1 FROM login_method_tenants lt WHERE lt.user_id = u.user_id AND lt.tenant_id = ${tenant})`);
}

function addSearch(conditions: Conditions, search: SearchTerms): void {
  if (search.emails.length > 0) {
    const prefixes = conditions.param(search.emails.map((term) => `${escapeLike(term)}%`));
    const domains = conditions.param(search.emails.map((term) => `%@${escapeLike(term)}%`));
    conditions.add(anyLoginMethod(`(u.email LIKE ANY(${prefixes}) OR u.email LIKE ANY(${domains}))`));
  }
  if (search.phones.length > 0)
    conditions.add(anyLoginMethod(`u.phone_number LIKE ANY(${conditions.param(search.phones.map((t) => `${escapeLike(t)}%`))})`));
  if (search.providers.length > 0) {
    conditions.add(anyLoginMethod(`u.third_party_id LIKE ANY(${conditions.param(search.providers.map((t) => `${escapeLike(t)}%`))})`));
  }
}

// Keyset pagination over user_groups__time_joined_{asc,desc}_idx: one item per user, ordered by the user's
// time_joined (the minimum over its login methods, kept current on link, unlink and delete); ties go by group id
// descending in both directions. DESC is a plain row comparison on (time_joined DESC, group_id DESC). ASC mixes
// directions, which no row comparison expresses, so the index bound is time_joined >= t and the tie rows are filtered.
// The recipe filter selects users having a login method of those recipes; it does not trim their login methods.
export async function findUsersPage(db: Queryable, query: PageQuery): Promise<StoredUser[]> {
  const conditions = new Conditions();
  conditions.add(inTenant(conditions.param(query.tenantId)));
  if (query.recipeIds) conditions.add(anyLoginMethod(`u.recipe_id = ANY(${conditions.param(query.recipeIds)})`));
  if (query.cursor) {
    const time = conditions.param(query.cursor.time);
    const id = conditions.param(query.cursor.id);
    conditions.add(
      query.order === 'DESC'
        ? `(g.time_joined, g.group_id) <= (${time}::bigint, ${id})`
        : `g.time_joined >= ${time}::bigint AND (g.time_joined > ${time}::bigint OR g.group_id <= ${id})`,
    );
  }
  if (query.search) addSearch(conditions, query.search);
  const limit = conditions.param(query.fetch);
  const { rows } = await db.query<{ group_id: string }>(
    `SELECT g.group_id FROM user_groups g ${conditions.where()}
     ORDER BY g.time_joined ${query.order}, g.group_id DESC LIMIT ${limit}`,
    conditions.values,
  );
  return findUsersByGroupIds(
    db,
    rows.map((row) => row.group_id),
  );
}

export async function countUsers(db: Queryable, tenantId: string | undefined, recipeIds: string[] | undefined): Promise<number> {
  const conditions = new Conditions();
  if (tenantId !== undefined) conditions.add(inTenant(conditions.param(tenantId)));
  if (recipeIds) conditions.add(anyLoginMethod(`u.recipe_id = ANY(${conditions.param(recipeIds)})`));
  const { rows } = await db.query<{ count: number }>(
    `SELECT count(*)::bigint AS count FROM user_groups g ${conditions.where()}`,
    conditions.values,
  );
  return rows[0].count;
}

export interface AccountInfo {
  // Several spellings of one contact: the normalised one and the one an earlier version stored.
  email?: string | readonly string[];
  phoneNumber?: string | readonly string[];
  thirdParty?: { id: string; userId: string };
  webauthnCredentialId?: string;
}

/** No lookup answers more users than this: an email shared by many third-party accounts must not size the reply. */
export const maxUsersPerLookup = 1000;

// Users having a login method that carries a value (email across all recipes, phone, third-party pair), each once,
// oldest first. Without union every criterion must be met, possibly by different login methods (AL-10.5).
export async function findUsersByAccountInfo(db: Queryable, tenantId: string, info: AccountInfo, union: boolean): Promise<StoredUser[]> {
  // The membership row's copies of the contacts (kept equal to the login method's by the users triggers) carry the
  // per-tenant indexes; `users` has none on them.
  const criteria = new Conditions();
  if (info.email !== undefined) criteria.add(criteria.inList('lt.email', [info.email].flat()));
  // Only passwordless login methods have phone numbers; naming the recipe lets its unique index (partial) serve this.
  if (info.phoneNumber !== undefined) {
    criteria.add(`(lt.recipe_id = 'passwordless' AND ${criteria.inList('lt.phone_number', [info.phoneNumber].flat())})`);
  }
  if (info.thirdParty) {
    criteria.add(`(lt.recipe_id = 'thirdparty' AND lt.third_party_id = ${criteria.param(info.thirdParty.id)}
      AND lt.third_party_user_id = ${criteria.param(info.thirdParty.userId)})`);
  }
  if (info.webauthnCredentialId !== undefined) {
    criteria.add(`EXISTS (SELECT 1 FROM webauthn_credentials wc WHERE wc.user_id = lt.user_id
      AND wc.credential_id = ${criteria.param(info.webauthnCredentialId)})`);
  }
  if (criteria.parts.length === 0) return [];
  const tenant = criteria.param(tenantId);
  const matched = criteria.parts.map((part, index) => `(${part}) AS c${index}`).join(', ');
  const every = union ? 'TRUE' : criteria.parts.map((_, index) => `bool_or(m.c${index})`).join(' AND ');
  // The matching groups and all their login methods in one statement: the SDK asks this on every sign-in.
  const users = await selectUsers(
    db,
    `g.group_id IN (SELECT mg.group_id
       FROM (SELECT i.group_id, ${matched}
               FROM login_method_tenants lt JOIN user_ids i ON i.user_id = lt.user_id
              WHERE lt.tenant_id = ${tenant} AND (${criteria.parts.join(' OR ')})) m
       JOIN user_groups mg ON mg.group_id = m.group_id
      GROUP BY mg.group_id, mg.time_joined
     HAVING ${every}
      ORDER BY mg.time_joined ASC, mg.group_id DESC LIMIT ${maxUsersPerLookup})`,
    criteria.values,
    'g.time_joined ASC, g.group_id DESC',
  );
  return [...users.values()];
}
