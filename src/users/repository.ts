import type { Queryable } from '../db/pool.js';

export type RecipeId = 'emailpassword' | 'passwordless' | 'thirdparty' | 'webauthn';

// One login method (a row of `users`), with what the user object needs from other tables.
export interface LoginMethodRow {
  user_id: string;
  // The tenants the login method is in, sorted (login_method_tenants); empty once it has left every one.
  tenant_ids: string[];
  recipe_id: RecipeId;
  time_joined: number;
  email: string | null;
  phone_number: string | null;
  third_party_id: string | null;
  third_party_user_id: string | null;
  external_user_id: string | null;
  verified: boolean;
  // True when the login method belongs to a primary user, whose other login methods the caller then loads.
  in_primary_user: boolean;
  // A webauthn login method's credential ids, oldest first (absent from rows a statement just wrote: none yet).
  webauthn_credential_ids?: string[] | null;
}

// A user: a group of one or more login methods (AL-2.1). For a standalone login method the group id is its own id.
export interface StoredUser {
  group_id: string;
  // The group id's own mapping: the user's id on the wire.
  external_user_id: string | null;
  is_primary: boolean;
  time_joined: number;
  // Oldest first; ties put the primary login method first, then by id (AL-3.1).
  login_methods: LoginMethodRow[];
}

// A login method's own fields, shared by both select lists below. OFFSET 0 keeps the EXISTS a per-row primary-key
// probe: without it PostgreSQL may hash the whole email_verifications table for every multi-row query (a 500-user
// page read all 50k rows: 12.8 ms instead of 2.6 ms).
const loginMethodFields = `u.recipe_id, u.time_joined, u.email, u.phone_number,
  u.third_party_id, u.third_party_user_id, m.external_user_id,
  (u.email IS NULL OR EXISTS (SELECT 1 FROM email_verifications ev WHERE ev.user_id = u.user_id AND ev.email = u.email OFFSET 0)) AS verified,
  CASE WHEN u.recipe_id = 'webauthn' THEN ARRAY(SELECT wc.credential_id FROM webauthn_credentials wc
    WHERE wc.user_id = u.user_id ORDER BY wc.created_at, wc.credential_id) END AS webauthn_credential_ids`;

// Select list for LoginMethodRow; the caller joins `users u LEFT JOIN user_id_mappings m ON m.user_id = u.user_id`.
// A login method inserted by the same statement has no user_ids row yet: it is standalone, as every new one is. Nor
// is its membership visible yet (the trigger of migration 0043 writes it): a row the statement's snapshot of `users`
// lacks is in the one tenant it was created in.
export const userColumns = `u.user_id,
  ARRAY(SELECT lt.tenant_id FROM login_method_tenants lt WHERE lt.user_id = u.user_id
        UNION SELECT u.tenant_id WHERE NOT EXISTS (SELECT 1 FROM users x WHERE x.user_id = u.user_id) ORDER BY 1) AS tenant_ids,
  ${loginMethodFields},
  coalesce((SELECT lg.is_primary FROM user_ids li JOIN user_groups lg ON lg.group_id = li.group_id WHERE li.user_id = u.user_id), false)
    AS in_primary_user`;

export const userFrom = 'users u LEFT JOIN user_id_mappings m ON m.user_id = u.user_id';

/** Follows userFrom: the login methods of a recipe that are in the tenant bound to $1; the caller adds conditions on `lt`. */
export function inTenant(recipeId: RecipeId): string {
  return `JOIN login_method_tenants lt ON lt.user_id = u.user_id WHERE lt.tenant_id = $1 AND lt.recipe_id = '${recipeId}'`;
}

// Either id is accepted; an internal id wins when a string is both (contract §2). Any id that names a user counts:
// a login method's id or a retained group id.
const resolveIdSql = `coalesce((SELECT user_id FROM user_ids WHERE user_id = $1),
  (SELECT user_id FROM user_id_mappings WHERE external_user_id = $1))`;

export async function resolveUserId(db: Queryable, id: string): Promise<string | undefined> {
  const { rows } = await db.query<{ user_id: string | null }>(`SELECT ${resolveIdSql} AS user_id`, [id]);
  return rows[0]?.user_id ?? undefined;
}

/** The login method with exactly this id (internal, or external through its mapping); a retained group id is none. */
export async function findLoginMethodById(db: Queryable, id: string): Promise<LoginMethodRow | undefined> {
  const { rows } = await db.query<LoginMethodRow>(`SELECT ${userColumns} FROM ${userFrom} WHERE u.user_id = ${resolveIdSql}`, [id]);
  return rows[0];
}

export async function findLoginMethodByInternalId(db: Queryable, userId: string): Promise<LoginMethodRow | undefined> {
  const { rows } = await db.query<LoginMethodRow>(`SELECT ${userColumns} FROM ${userFrom} WHERE u.user_id = $1`, [userId]);
  return rows[0];
}

function compareLoginMethods(groupId: string, isPrimary: boolean) {
  const rank = (row: LoginMethodRow) => (isPrimary && row.user_id === groupId ? 0 : 1);
  return (a: LoginMethodRow, b: LoginMethodRow) =>
    a.time_joined - b.time_joined || rank(a) - rank(b) || (a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0);
}

export type GroupedRow = LoginMethodRow & {
  group_id: string;
  is_primary: boolean;
  group_time_joined: number;
  group_external_user_id: string | null;
};

// Select list and joins for every login method of a group (user_groups g) with the group's own fields; the caller
// adds conditions on g. Every row read this way is in the statement's snapshot of `users` (a new one has no user_ids
// row yet), so its tenants are its memberships alone; and the group is joined already, so whether it is primary is
// read from it rather than looked up again. Rows in this shape become users through groupUsers.
export const groupedUserColumns = `g.group_id, g.is_primary, g.time_joined AS group_time_joined, gm.external_user_id AS group_external_user_id,
  u.user_id, ARRAY(SELECT lt.tenant_id FROM login_method_tenants lt WHERE lt.user_id = u.user_id ORDER BY 1) AS tenant_ids,
  ${loginMethodFields}, g.is_primary AS in_primary_user`;

export const groupedUserFrom = `user_groups g
  JOIN user_ids i ON i.group_id = g.group_id
  JOIN users u ON u.user_id = i.user_id
  LEFT JOIN user_id_mappings m ON m.user_id = u.user_id
  LEFT JOIN user_id_mappings gm ON gm.user_id = g.group_id`;

/** The users the rows of groupedUserColumns make, keyed by group id, in the order their first rows came. */
export function groupUsers(rows: readonly GroupedRow[]): Map<string, StoredUser> {
  const users = new Map<string, StoredUser>();
  for (const { group_id, is_primary, group_time_joined, group_external_user_id, ...loginMethod } of rows) {
    let user = users.get(group_id);
    if (!user) {
      user = { group_id, external_user_id: group_external_user_id, is_primary, time_joined: group_time_joined, login_methods: [] };
      users.set(group_id, user);
    }
    user.login_methods.push(loginMethod);
  }
  for (const user of users.values()) user.login_methods.sort(compareLoginMethods(user.group_id, user.is_primary));
  return users;
}

// Every login method of the groups `condition` selects (on user_groups g), in one statement; with `order` (on g),
// the users come in that order.
export async function selectUsers(db: Queryable, condition: string, values: unknown[], order = ''): Promise<Map<string, StoredUser>> {
  const { rows } = await db.query<GroupedRow>(
    `SELECT ${groupedUserColumns} FROM ${groupedUserFrom} WHERE ${condition}${order && ` ORDER BY ${order}`}`,
    values,
  );
  return groupUsers(rows);
}

/** The users with these group ids, in the order given; ids that name no group are skipped. */
export async function findUsersByGroupIds(db: Queryable, groupIds: readonly string[]): Promise<StoredUser[]> {
  if (groupIds.length === 0) return [];
  const users = await selectUsers(db, 'g.group_id = ANY($1::text[])', [groupIds]);
  return groupIds.map((id) => users.get(id)).filter((user) => user !== undefined);
}

/**
 * A single login method shown as a user (the deprecated per-recipe GET by id, AL-10.7): its own id and fields, and
 * the primary flag of the user it belongs to.
 */
export function loginMethodView(row: LoginMethodRow): StoredUser {
  return {
    group_id: row.user_id,
    external_user_id: row.external_user_id,
    is_primary: row.in_primary_user,
    time_joined: row.time_joined,
    login_methods: [row],
  };
}

/** The whole user a login method belongs to; a standalone one is its own user, with no further query. */
export async function findUserOfLoginMethod(db: Queryable, row: LoginMethodRow): Promise<StoredUser> {
  if (!row.in_primary_user) return loginMethodView(row);
  const { rows } = await db.query<{ group_id: string }>('SELECT group_id FROM user_ids WHERE user_id = $1', [row.user_id]);
  const [user] = await findUsersByGroupIds(
    db,
    rows.map((r) => r.group_id),
  );
  return user;
}

/** The user any of its ids names: a login method's id, the (retained) group id, or the external id of either. */
export async function findUserById(db: Queryable, id: string): Promise<StoredUser | undefined> {
  const users = await selectUsers(db, `g.group_id = (SELECT group_id FROM user_ids WHERE user_id = ${resolveIdSql})`, [id]);
  return users.values().next().value;
}

/** Whether an internal id names a user: a login method or a retained group id. */
export async function userExists(db: Queryable, userId: string): Promise<boolean> {
  const { rows } = await db.query<{ exists: boolean }>('SELECT EXISTS (SELECT 1 FROM user_ids WHERE user_id = $1) AS exists', [userId]);
  return rows[0].exists;
}
