import type { Queryable } from '../../db/pool.js';
import { foreignKeyViolationOf, uniqueViolationOf, type ConstraintName } from '../../db/pg-errors.js';

export interface UserIdMappingRow {
  user_id: string;
  external_user_id: string;
  external_user_id_info: string | null;
}

const mappingColumns = 'user_id, external_user_id, external_user_id_info';

export async function findMappingByUserId(db: Queryable, userId: string): Promise<UserIdMappingRow | undefined> {
  const { rows } = await db.query<UserIdMappingRow>(`SELECT ${mappingColumns} FROM user_id_mappings WHERE user_id = $1`, [userId]);
  return rows[0];
}

export async function findMappingByExternalId(db: Queryable, externalUserId: string): Promise<UserIdMappingRow | undefined> {
  const { rows } = await db.query<UserIdMappingRow>(`SELECT ${mappingColumns} FROM user_id_mappings WHERE external_user_id = $1`, [
    externalUserId,
  ]);
  return rows[0];
}

// A string can be one mapping's internal id and (after a forced mapping) another's external id; the mapping
// whose internal id it is wins.
export async function findMappingByEitherId(db: Queryable, id: string): Promise<UserIdMappingRow | undefined> {
  const { rows } = await db.query<UserIdMappingRow>(
    `SELECT ${mappingColumns} FROM user_id_mappings WHERE user_id = $1 OR external_user_id = $1
     ORDER BY (user_id = $1) DESC LIMIT 1`,
    [id],
  );
  return rows[0];
}

// Both sides in one statement, so the answer comes from one snapshot even while another request commits.
export async function findMappingsByUserIdOrExternalId(db: Queryable, userId: string, externalUserId: string): Promise<UserIdMappingRow[]> {
  const { rows } = await db.query<UserIdMappingRow>(
    `SELECT ${mappingColumns} FROM user_id_mappings WHERE user_id = $1 OR external_user_id = $2`,
    [userId, externalUserId],
  );
  return rows;
}

/** INSERTED, or why not: either id already has a mapping, the user does not exist (any more), or the external id
 * names a user and the mapping is not forced. */
export type InsertMappingOutcome = 'INSERTED' | 'MAPPING_EXISTS' | 'UNKNOWN_USER' | 'EXTERNAL_ID_NAMES_USER';

const mappingKeys = new Set<ConstraintName>(['user_id_mappings__pkey', 'user_id_mappings__external_user_id_key']);

export async function insertMapping(
  db: Queryable,
  mapping: { userId: string; externalUserId: string; info: string | null },
): Promise<InsertMappingOutcome> {
  try {
    await db.query('INSERT INTO user_id_mappings (user_id, external_user_id, external_user_id_info) VALUES ($1, $2, $3)', [
      mapping.userId,
      mapping.externalUserId,
      mapping.info,
    ]);
    return 'INSERTED';
  } catch (error) {
    const unique = uniqueViolationOf(error);
    if (unique !== undefined && mappingKeys.has(unique)) return 'MAPPING_EXISTS';
    if (foreignKeyViolationOf(error) === 'user_id_mappings__user_id_fkey') return 'UNKNOWN_USER';
    if (unique === 'user_id_mappings__external_user_id_not_user_id') return 'EXTERNAL_ID_NAMES_USER';
    throw error;
  }
}

export async function deleteMappingByUserId(db: Queryable, userId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM user_id_mappings WHERE user_id = $1', [userId]);
  return rowCount === 1;
}

export async function deleteMappingByExternalId(db: Queryable, externalUserId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM user_id_mappings WHERE external_user_id = $1', [externalUserId]);
  return rowCount === 1;
}

export async function updateExternalUserIdInfoByUserId(db: Queryable, userId: string, info: string | null): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE user_id_mappings SET external_user_id_info = $2 WHERE user_id = $1', [userId, info]);
  return rowCount === 1;
}

export async function updateExternalUserIdInfoByExternalId(db: Queryable, externalUserId: string, info: string | null): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE user_id_mappings SET external_user_id_info = $2 WHERE external_user_id = $1', [
    externalUserId,
    info,
  ]);
  return rowCount === 1;
}

export type IdClashKind = 'USER_ID' | 'EXTERNAL_ID';

// Of the given would-be external ids, those that are user ids (USER_ID), or will be: a bulk-import queue row's id is
// the id its user gets, and the enqueue answer shows it before the user exists. Of the given would-be user ids,
// those that are external ids (EXTERNAL_ID). Each key probes its own index (see findImportConflicts); sent
// unprepared, so it is planned for its input whether it runs for one mapping or a batch.
export async function findIdClashes(
  db: Queryable,
  externalUserIds: string[],
  userIds: string[],
): Promise<{ kind: IdClashKind; id: string }[]> {
  if (externalUserIds.length === 0 && userIds.length === 0) return [];
  const { rows } = await db.query<{ kind: IdClashKind; id: string }>({
    text: `SELECT 'USER_ID' AS kind, k.id FROM unnest($1::text[]) AS k(id)
             CROSS JOIN LATERAL (SELECT 1 FROM user_ids i WHERE i.user_id = k.id
                                 UNION ALL SELECT 1 FROM bulk_import_users b WHERE b.id = k.id LIMIT 1) AS hit
           UNION ALL SELECT 'EXTERNAL_ID', k.id FROM unnest($2::text[]) AS k(id)
             CROSS JOIN LATERAL (SELECT 1 FROM user_id_mappings m WHERE m.external_user_id = k.id LIMIT 1) AS hit`,
    values: [externalUserIds, userIds],
  });
  return rows;
}

// A mapping created with `force` may name an existing user as its external id (contract §9.1 step 3); the
// database refuses it otherwise (migration 0016). The setting ends with the caller's transaction.
export async function allowExternalIdNamingUser(db: Queryable): Promise<void> {
  await db.query(`SELECT set_config('identity_core.force_user_id_mapping', 'on', true)`);
}

/** For set-based imports: mappings of users created in the same transaction (the caller checked every rule). */
export async function insertUserIdMappings(db: Queryable, userIds: string[], externalUserIds: string[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.query('INSERT INTO user_id_mappings (user_id, external_user_id) SELECT * FROM unnest($1::text[], $2::text[])', [
    userIds,
    externalUserIds,
  ]);
}
