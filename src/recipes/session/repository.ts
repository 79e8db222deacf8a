import type { Queryable } from '../../db/pool.js';

// The statements of the hot paths (create, refresh, verify) are named: each connection parses and plans them once.

export interface SessionRow {
  tenant_id: string;
  session_handle: string;
  user_id: string;
  refresh_token_hash_2: string;
  prev_refresh_token_hash_2: string | null;
  refresh_token_rotated_at: number | null;
  session_data: string;
  jwt_user_payload: string;
  expires_at: number;
  created_at_time: number;
  use_static_key: boolean;
}

const columns = `tenant_id, session_handle, user_id, refresh_token_hash_2, prev_refresh_token_hash_2, refresh_token_rotated_at,
  session_data, jwt_user_payload, expires_at, created_at_time, use_static_key`;
const qualifiedColumns = columns
  .split(',')
  .map((column) => `s.${column.trim()}`)
  .join(', ');

export async function insertSession(db: Queryable, row: SessionRow): Promise<void> {
  await db.query({
    name: 'session-insert',
    text: `INSERT INTO session_info (${columns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    values: rowValues(row),
  });
}

// In the order of `columns`.
function rowValues(row: SessionRow): unknown[] {
  return [
    row.tenant_id,
    row.session_handle,
    row.user_id,
    row.refresh_token_hash_2,
    row.prev_refresh_token_hash_2,
    row.refresh_token_rotated_at,
    row.session_data,
    row.jwt_user_payload,
    row.expires_at,
    row.created_at_time,
    row.use_static_key,
  ];
}

/** The row whatever its expiry; `forUpdate` locks it until the transaction ends (refresh, promotion). */
export async function findSession(db: Queryable, tenantId: string, handle: string, forUpdate = false): Promise<SessionRow | undefined> {
  const { rows } = await db.query<SessionRow>({
    name: forUpdate ? 'session-find-for-update' : 'session-find',
    text: `SELECT ${columns} FROM session_info WHERE tenant_id = $1 AND session_handle = $2${forUpdate ? ' FOR UPDATE' : ''}`,
    values: [tenantId, handle],
  });
  return rows[0];
}

export interface SessionRowWithPrimary extends SessionRow {
  // The primary user id of the stored recipe user id now (S-6.2), external when mapped.
  primary_user_id: string;
}

/** findSession and the current primary user id in one statement (refresh, session information). */
export async function findSessionWithPrimary(
  db: Queryable,
  tenantId: string,
  handle: string,
  forUpdate = false,
): Promise<SessionRowWithPrimary | undefined> {
  const { rows } = await db.query<SessionRowWithPrimary>({
    name: forUpdate ? 'session-find-with-primary-for-update' : 'session-find-with-primary',
    text: `SELECT ${qualifiedColumns}, r.primary_user_id
       FROM session_info s
      CROSS JOIN LATERAL (
        SELECT coalesce((SELECT user_id FROM user_ids WHERE user_id = s.user_id),
                        (SELECT user_id FROM user_id_mappings WHERE external_user_id = s.user_id), s.user_id) AS st) g
      CROSS JOIN LATERAL (
        SELECT coalesce((SELECT m.external_user_id FROM user_ids i JOIN user_id_mappings m ON m.user_id = i.group_id WHERE i.user_id = g.st),
                        (SELECT i.group_id FROM user_ids i WHERE i.user_id = g.st), s.user_id) AS primary_user_id) r
      WHERE s.tenant_id = $1 AND s.session_handle = $2${forUpdate ? ' FOR UPDATE OF s' : ''}`,
    values: [tenantId, handle],
  });
  return rows[0];
}

export interface TokenHashes {
  refresh_token_hash_2: string;
  prev_refresh_token_hash_2: string | null;
  refresh_token_rotated_at: number | null;
  expires_at: number;
  use_static_key: boolean;
}

export async function updateSessionTokens(db: Queryable, tenantId: string, handle: string, hashes: TokenHashes): Promise<void> {
  await db.query(
    `UPDATE session_info SET refresh_token_hash_2 = $3, prev_refresh_token_hash_2 = $4, refresh_token_rotated_at = $5,
       expires_at = $6, use_static_key = $7 WHERE tenant_id = $1 AND session_handle = $2`,
    [
      tenantId,
      handle,
      hashes.refresh_token_hash_2,
      hashes.prev_refresh_token_hash_2,
      hashes.refresh_token_rotated_at,
      hashes.expires_at,
      hashes.use_static_key,
    ],
  );
}

export interface Rotation {
  tenantId: string;
  handle: string;
  // The recipe user id the presented refresh token carries (always the stored one).
  userId: string;
  presentedHash2: string;
  parentHash2: string | null;
  newHash2: string;
  now: number;
  expiresAt: number;
  // refresh_token_rotation_grace_period, in ms.
  gracePeriodMs: number;
  // null: keep the session's key family.
  useStaticKey: boolean | null;
}

// The current primary user id of a session row's recipe user id (S-6.2), external when mapped; `s` is the row.
const primaryOfSessionUser = `(SELECT coalesce(
    (SELECT m.external_user_id FROM user_ids i JOIN user_id_mappings m ON m.user_id = i.group_id WHERE i.user_id = g.st),
    (SELECT i.group_id FROM user_ids i WHERE i.user_id = g.st), s.user_id)
  FROM (SELECT coalesce((SELECT user_id FROM user_ids WHERE user_id = s.user_id),
                        (SELECT user_id FROM user_id_mappings WHERE external_user_id = s.user_id), s.user_id) AS st) g)`;

// The presented token is the one the last rotation replaced, within the grace period ($4 presented, $7 now).
const withinGraceSql = `(s.prev_refresh_token_hash_2 = $4 AND s.refresh_token_rotated_at IS NOT NULL
  AND $7 <= s.refresh_token_rotated_at + $10::bigint)`;

/**
 * Rotates a live session's refresh token when the presented token is its current one, the child of it, or the one
 * the last rotation replaced within the grace period (cdi 5.6), in one statement. Within the grace period only the
 * current hash moves, as under the row lock. Undefined when the row is missing, expired or matches none of these
 * (the caller then decides under the row lock). A concurrent rotation that commits first is seen on the re-check of
 * the WHERE, so the presented token then counts as the replaced one.
 */
export async function rotateCurrentToken(
  db: Queryable,
  rotation: Rotation,
): Promise<{ jwt_user_payload: string; use_static_key: boolean; primary_user_id: string } | undefined> {
  const { rows } = await db.query<{ jwt_user_payload: string; use_static_key: boolean; primary_user_id: string }>({
    name: 'session-rotate-current',
    text: `UPDATE session_info s SET refresh_token_hash_2 = $6,
             prev_refresh_token_hash_2 = CASE WHEN ${withinGraceSql} THEN s.prev_refresh_token_hash_2 ELSE $4 END,
             refresh_token_rotated_at = CASE WHEN ${withinGraceSql} THEN s.refresh_token_rotated_at ELSE $7 END,
             expires_at = CASE WHEN ${withinGraceSql} THEN s.expires_at ELSE $8 END,
             use_static_key = coalesce($9::boolean, s.use_static_key)
            WHERE s.tenant_id = $1 AND s.session_handle = $2 AND s.user_id = $3 AND s.expires_at > $7
              AND (s.refresh_token_hash_2 = $4 OR s.refresh_token_hash_2 = $5 OR ${withinGraceSql})
        RETURNING s.jwt_user_payload, s.use_static_key, ${primaryOfSessionUser} AS primary_user_id`,
    values: [
      rotation.tenantId,
      rotation.handle,
      rotation.userId,
      rotation.presentedHash2,
      rotation.parentHash2,
      rotation.newHash2,
      rotation.now,
      rotation.expiresAt,
      rotation.useStaticKey,
      rotation.gracePeriodMs,
    ],
  });
  return rows[0];
}

export interface Promotion {
  tenantId: string;
  handle: string;
  // The recipe user id the presented refresh token carries (always the stored one).
  userId: string;
  // H2 of the presented token's parent: the stored hash when the presented token is the child of the current one.
  parentHash2: string;
  // H2 of the presented token, stored from now on.
  presentedHash2: string;
  now: number;
  expiresAt: number;
  // null: keep the session's key family.
  useStaticKey: boolean | null;
}

/**
 * Up to cdi 5.5, the first use of the current refresh token's child moves the stored hash to the child, in one
 * statement; undefined when the row is missing, expired or holds another hash (the caller then decides under the
 * row lock). A concurrent promotion that commits first makes the WHERE false on its re-check.
 */
export async function promoteChildToken(
  db: Queryable,
  promotion: Promotion,
): Promise<{ jwt_user_payload: string; use_static_key: boolean; primary_user_id: string } | undefined> {
  const { rows } = await db.query<{ jwt_user_payload: string; use_static_key: boolean; primary_user_id: string }>({
    name: 'session-promote-child',
    text: `UPDATE session_info s SET refresh_token_hash_2 = $5, prev_refresh_token_hash_2 = $4, refresh_token_rotated_at = $6,
             expires_at = $7, use_static_key = coalesce($8::boolean, s.use_static_key)
            WHERE s.tenant_id = $1 AND s.session_handle = $2 AND s.user_id = $3 AND s.expires_at > $6
              AND s.refresh_token_hash_2 = $4
        RETURNING s.jwt_user_payload, s.use_static_key, ${primaryOfSessionUser} AS primary_user_id`,
    values: [
      promotion.tenantId,
      promotion.handle,
      promotion.userId,
      promotion.parentHash2,
      promotion.presentedHash2,
      promotion.now,
      promotion.expiresAt,
      promotion.useStaticKey,
    ],
  });
  return rows[0];
}

/** Sets one payload column of a live session; false when there is none. */
export async function updateSessionPayload(
  db: Queryable,
  column: 'session_data' | 'jwt_user_payload',
  tenantId: string,
  handle: string,
  value: string,
  now: number,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE session_info SET ${column} = $3 WHERE tenant_id = $1 AND session_handle = $2 AND expires_at > $4`,
    [tenantId, handle, value, now],
  );
  return (rowCount ?? 0) > 0;
}

export async function deleteSession(db: Queryable, tenantId: string, handle: string): Promise<void> {
  await db.query('DELETE FROM session_info WHERE tenant_id = $1 AND session_handle = $2', [tenantId, handle]);
}

export async function deleteSessionsByHandles(db: Queryable, tenantId: string, handles: string[]): Promise<string[]> {
  const { rows } = await db.query<{ session_handle: string }>(
    'DELETE FROM session_info WHERE tenant_id = $1 AND session_handle = ANY($2::text[]) RETURNING session_handle',
    [tenantId, handles],
  );
  return rows.map((row) => row.session_handle);
}

// Every id form a user's sessions may be stored under (S-6.3): each login method (all of its group's with
// `linked`) by its own id and by its external id, plus the given id itself (a session may name an unknown user).
// Lookups go through `= ANY(ARRAY(...))` so they stay index probes on tables that were never analysed.
const storedFormsSql = `WITH given AS (
    SELECT coalesce((SELECT user_id FROM user_ids WHERE user_id = $1::text),
                    (SELECT user_id FROM user_id_mappings WHERE external_user_id = $1::text)) AS user_id),
  members AS (
    SELECT user_id FROM given WHERE user_id IS NOT NULL
    UNION
    SELECT i.user_id FROM user_ids i
     WHERE $2::boolean AND i.group_id = (SELECT group_id FROM user_ids WHERE user_id = (SELECT user_id FROM given))),
  forms AS (
    SELECT user_id AS id FROM members
    UNION SELECT m.external_user_id FROM user_id_mappings m WHERE m.user_id = ANY(ARRAY(SELECT user_id FROM members))
    UNION SELECT $1::text)`;

export interface UserSessionsQuery {
  userId: string;
  linked: boolean;
  // undefined: every tenant.
  tenantId: string | undefined;
  now: number;
}

const userSessionsWhere = `user_id = ANY(ARRAY(SELECT id FROM forms)) AND expires_at > $3 AND ($4::text IS NULL OR tenant_id = $4)`;

export async function findHandlesOfUser(db: Queryable, query: UserSessionsQuery): Promise<string[]> {
  const { rows } = await db.query<{ session_handle: string }>(
    `${storedFormsSql} SELECT session_handle FROM session_info WHERE ${userSessionsWhere} ORDER BY created_at_time, session_handle`,
    [query.userId, query.linked, query.now, query.tenantId ?? null],
  );
  return rows.map((row) => row.session_handle);
}

export async function deleteSessionsOfUser(db: Queryable, query: UserSessionsQuery): Promise<string[]> {
  const { rows } = await db.query<{ session_handle: string }>(
    `${storedFormsSql} DELETE FROM session_info WHERE ${userSessionsWhere} RETURNING session_handle`,
    [query.userId, query.linked, query.now, query.tenantId ?? null],
  );
  return rows.map((row) => row.session_handle);
}

export interface SessionUserIds {
  // The recipe user id in external form when mapped (what sessions store and `rsub` carries).
  recipe_user_id: string;
  // The primary user id of its group, external when mapped; the id itself for a standalone or unknown id.
  primary_user_id: string;
}

// S-6.1 / S-6.2: either id form in; the recipe and primary ids out, each in its external form where mapped.
const sessionUserIdsSql = `given AS (
       SELECT coalesce((SELECT user_id FROM user_ids WHERE user_id = $1),
                       (SELECT user_id FROM user_id_mappings WHERE external_user_id = $1), $1) AS user_id),
     grp AS (SELECT i.group_id FROM user_ids i WHERE i.user_id = (SELECT user_id FROM given)),
     ids AS (
     SELECT coalesce((SELECT m.external_user_id FROM user_id_mappings m WHERE m.user_id = (SELECT user_id FROM given)),
                     (SELECT user_id FROM given)) AS recipe_user_id,
            coalesce((SELECT m.external_user_id FROM user_id_mappings m WHERE m.user_id = (SELECT group_id FROM grp)),
                     (SELECT group_id FROM grp),
                     (SELECT m.external_user_id FROM user_id_mappings m WHERE m.user_id = (SELECT user_id FROM given)),
                     (SELECT user_id FROM given)) AS primary_user_id)`;

export async function resolveSessionUserIds(db: Queryable, userId: string): Promise<SessionUserIds> {
  const { rows } = await db.query<SessionUserIds>({
    name: 'session-resolve-user-ids',
    text: `WITH ${sessionUserIdsSql} SELECT recipe_user_id, primary_user_id FROM ids`,
    values: [userId],
  });
  return rows[0];
}

/**
 * Inserts a new session whose `user_id` is the given id, in the same statement that resolves the id (S-6.1), when
 * the id is already the recipe user id in its stored form (its external id when mapped: what every SDK sends);
 * answers the primary user id then, and undefined, having written nothing, when the id resolves to another form.
 */
export async function insertSessionOfRecipeUser(db: Queryable, row: SessionRow): Promise<{ primary_user_id: string } | undefined> {
  const { rows } = await db.query<{ primary_user_id: string }>({
    name: 'session-insert-of-recipe-user',
    text: `WITH ${sessionUserIdsSql}
      INSERT INTO session_info (${columns})
      SELECT $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12 FROM ids WHERE ids.recipe_user_id = $1
      RETURNING (SELECT primary_user_id FROM ids) AS primary_user_id`,
    values: [row.user_id, ...rowValues(row)],
  });
  return rows[0];
}

/** Deletes up to `limit` sessions that expired; the cleanup job calls it until fewer come back. */
export async function deleteExpiredSessions(db: Queryable, now: number, limit: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM session_info WHERE (tenant_id, session_handle) IN (
       SELECT tenant_id, session_handle FROM session_info WHERE expires_at <= $1 LIMIT $2)`,
    [now, limit],
  );
  return rowCount ?? 0;
}

/**
 * Ends the sessions of one login method, stored under its id or its external id (AL-7, AL-9): after a link or an
 * unlink they name a user the login method no longer belongs to, so the reference revokes them. Sessions of the
 * group's other login methods stay.
 */
export async function deleteSessionsOfLoginMethod(db: Queryable, userId: string): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM session_info WHERE user_id = ANY(ARRAY(
       SELECT $1::text UNION ALL SELECT external_user_id FROM user_id_mappings WHERE user_id = $1::text))`,
    [userId],
  );
  return rowCount ?? 0;
}

/** The sessions of login methods being removed (S-6.4), under their ids and their external ids. */
export async function deleteSessionsOfLoginMethods(db: Queryable, userIds: string[]): Promise<void> {
  await db.query(
    `DELETE FROM session_info WHERE user_id = ANY(ARRAY(
       SELECT unnest($1::text[]) UNION ALL SELECT m.external_user_id FROM user_id_mappings m WHERE m.user_id = ANY($1::text[])))`,
    [userIds],
  );
}

/** Every session of these ids, whatever form each was stored under. */
export async function deleteSessionsOfUsers(db: Queryable, userIds: string[]): Promise<void> {
  await db.query('DELETE FROM session_info WHERE user_id = ANY($1::text[])', [userIds]);
}
