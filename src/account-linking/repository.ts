import type { Queryable } from '../db/pool.js';

// All SQL of account linking. The users triggers of migration 0011 and account_groups_refresh keep time_joined and
// the reservations of primary users in step; the functions here move login methods between groups and call it.

export interface LinkState {
  user_id: string;
  group_id: string;
  is_primary: boolean;
  // False for a retained group id whose own login method is gone.
  is_login_method: boolean;
}

/** Where an internal id stands, its user_ids row locked when `lock` (the caller is in a transaction). */
export async function findLinkState(db: Queryable, userId: string, lock = false): Promise<LinkState | undefined> {
  const { rows } = await db.query<LinkState>(
    `SELECT i.user_id, i.group_id, g.is_primary, EXISTS (SELECT 1 FROM users u WHERE u.user_id = i.user_id) AS is_login_method
       FROM user_ids i JOIN user_groups g ON g.group_id = i.group_id
      WHERE i.user_id = $1 ${lock ? 'FOR UPDATE OF i' : ''}`,
    [userId],
  );
  return rows[0];
}

/** Locks the groups in id order, so that two operations on the same pair of groups never deadlock. */
export async function lockGroups(db: Queryable, groupIds: string[]): Promise<Map<string, boolean>> {
  const { rows } = await db.query<{ group_id: string; is_primary: boolean }>(
    'SELECT group_id, is_primary FROM user_groups WHERE group_id = ANY($1::text[]) ORDER BY group_id FOR UPDATE',
    [[...new Set(groupIds)]],
  );
  return new Map(rows.map((row) => [row.group_id, row.is_primary]));
}

export type ConflictKind = 'email' | 'phone' | 'tparty';

/** The first of a login method's email, phone number and third-party pair that a primary user other than `exceptGroupId` holds (AL-4). */
export async function findAccountInfoConflict(
  db: Queryable,
  userId: string,
  exceptGroupId: string | null,
): Promise<{ kind: ConflictKind; group_id: string } | undefined> {
  const { rows } = await db.query<{ kind: ConflictKind; group_id: string }>(
    `SELECT v.kind, r.group_id
       FROM users u
       CROSS JOIN LATERAL (VALUES (1, 'email', u.email), (2, 'phone', u.phone_number),
                                  (3, 'tparty', u.third_party_id || '::' || u.third_party_user_id)) AS v(rank, kind, value)
       JOIN login_method_tenants t ON t.user_id = u.user_id
       JOIN primary_account_infos r ON r.tenant_id = t.tenant_id AND r.info_type = v.kind AND r.info_value = v.value
      WHERE u.user_id = $1 AND r.group_id IS DISTINCT FROM $2
      ORDER BY v.rank LIMIT 1`,
    [userId, exceptGroupId],
  );
  return rows[0];
}

/** Which of an email and a phone number a primary user other than the one `userId` belongs to holds in any of the tenants. */
export async function findContactsHeldElsewhere(
  db: Queryable,
  tenantIds: readonly string[],
  userId: string,
  email: string | null,
  phoneNumber: string | null,
): Promise<{ email: boolean; phoneNumber: boolean }> {
  const { rows } = await db.query<{ info_type: 'email' | 'phone' }>(
    `SELECT r.info_type FROM primary_account_infos r
      WHERE r.tenant_id = ANY($1::text[]) AND ((r.info_type = 'email' AND r.info_value = $3) OR (r.info_type = 'phone' AND r.info_value = $4))
        AND r.group_id IS DISTINCT FROM (SELECT i.group_id FROM user_ids i WHERE i.user_id = $2)`,
    [tenantIds, userId, email, phoneNumber],
  );
  return { email: rows.some((row) => row.info_type === 'email'), phoneNumber: rows.some((row) => row.info_type === 'phone') };
}

/** Marks groups primary (or not) and brings their reservations in line; a value another primary user holds fails on primary_account_infos__info_key. */
export async function setGroupsPrimary(db: Queryable, groupIds: string[], isPrimary: boolean): Promise<void> {
  await db.query('UPDATE user_groups SET is_primary = $2 WHERE group_id = ANY($1::text[])', [groupIds, isPrimary]);
  await refreshGroups(db, groupIds);
}

export async function refreshGroups(db: Queryable, groupIds: string[]): Promise<void> {
  await db.query('SELECT account_groups_refresh($1::text[])', [groupIds]);
}

/** Moves a login method into another group (link), or into a new standalone group of its own (unlink). */
export async function moveLoginMethod(db: Queryable, userId: string, fromGroupId: string, toGroupId: string): Promise<void> {
  if (toGroupId === userId) {
    await db.query(
      `INSERT INTO user_groups (group_id, tenant_id, time_joined) SELECT user_id, tenant_id, time_joined FROM users WHERE user_id = $1`,
      [userId],
    );
  }
  await db.query('UPDATE user_ids SET group_id = $2 WHERE user_id = $1', [userId, toGroupId]);
  await refreshGroups(db, [fromGroupId, toGroupId]);
}

export async function countLoginMethods(db: Queryable, groupId: string): Promise<number> {
  const { rows } = await db.query<{ count: number }>(
    'SELECT count(*)::int AS count FROM user_ids i JOIN users u ON u.user_id = i.user_id WHERE i.group_id = $1',
    [groupId],
  );
  return rows[0].count;
}

export async function findExternalId(db: Queryable, userId: string): Promise<string> {
  const { rows } = await db.query<{ external_user_id: string }>('SELECT external_user_id FROM user_id_mappings WHERE user_id = $1', [
    userId,
  ]);
  return rows[0]?.external_user_id ?? userId;
}

/**
 * For a set-based import of linked users (bulk import with several login methods): creates the primary groups and
 * the ids of every login method before the users rows are inserted; the users insert trigger then refreshes those
 * groups (time_joined, reservations). Insert users in the same transaction.
 */
export async function insertPrimaryGroups(
  db: Queryable,
  groups: { groupIds: string[]; timesJoined: number[] },
  loginMethods: { userIds: string[]; groupIds: string[] },
): Promise<void> {
  await db.query(
    `INSERT INTO user_groups (group_id, is_primary, time_joined) SELECT g, true, t FROM unnest($1::text[], $2::bigint[]) AS x(g, t)`,
    [groups.groupIds, groups.timesJoined],
  );
  await db.query('INSERT INTO user_ids (user_id, group_id) SELECT * FROM unnest($1::text[], $2::text[])', [
    loginMethods.userIds,
    loginMethods.groupIds,
  ]);
}

/** Ids of new login methods placed in a group before their users rows are inserted (the insert trigger refreshes it). */
export async function insertLoginMethodIds(db: Queryable, userIds: string[], groupId: string): Promise<void> {
  await db.query('INSERT INTO user_ids (user_id, group_id) SELECT k, $2 FROM unnest($1::text[]) AS k', [userIds, groupId]);
}
