import type { Queryable } from '../../db/pool.js';

export type Metadata = Record<string, unknown>;

export async function findUserMetadata(db: Queryable, userId: string): Promise<Metadata | undefined> {
  const { rows } = await db.query<{ metadata: Metadata }>('SELECT metadata FROM user_metadata WHERE user_id = $1', [userId]);
  return rows[0]?.metadata;
}

/** The bytes of JSON text the stored metadata of `userIds` (repeats counted) makes, read without reading the values. */
export async function sumMetadataBytesOfUsers(db: Queryable, userIds: string[]): Promise<number> {
  const { rows } = await db.query<{ bytes: string }>(
    `SELECT coalesce(sum(octet_length(m.metadata::text)), 0) AS bytes FROM unnest($1::text[]) AS k(user_id)
       JOIN user_metadata m ON m.user_id = k.user_id`,
    [userIds],
  );
  return Number(rows[0].bytes);
}

/** The stored metadata of each id, `null` where there is none, in the order and with the repeats of `userIds`. */
export async function findMetadataOfUsers(db: Queryable, userIds: string[]): Promise<(Metadata | null)[]> {
  const { rows } = await db.query<{ metadata: Metadata | null }>(
    `SELECT m.metadata FROM unnest($1::text[]) WITH ORDINALITY AS k(user_id, ord)
       LEFT JOIN user_metadata m ON m.user_id = k.user_id ORDER BY k.ord`,
    [userIds],
  );
  return rows.map((row) => row.metadata);
}

/** Merges `patch` (JSON text of an object) into the stored metadata by M-3's rules, in one statement; the result. */
export async function mergeUserMetadata(db: Queryable, userId: string, patch: string): Promise<Metadata> {
  const { rows } = await db.query<{ metadata: Metadata }>(
    `INSERT INTO user_metadata AS m (user_id, metadata) VALUES ($1, user_metadata_merge('{}', $2::json))
     ON CONFLICT (user_id) DO UPDATE SET metadata = user_metadata_merge(m.metadata, $2::json)
     RETURNING metadata`,
    [userId, patch],
  );
  return rows[0].metadata;
}

/** Set-based form of mergeUserMetadata for bulk import; each id at most once. */
export async function mergeMetadataOfUsers(db: Queryable, userIds: string[], patches: string[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.query(
    `INSERT INTO user_metadata AS m (user_id, metadata)
     SELECT k.user_id, user_metadata_merge('{}', k.patch::json) FROM unnest($1::text[], $2::text[]) AS k(user_id, patch)
     ON CONFLICT (user_id) DO UPDATE SET metadata = user_metadata_merge(m.metadata, EXCLUDED.metadata)`,
    [userIds, patches],
  );
}

export async function deleteUserMetadata(db: Queryable, userIds: string[]): Promise<void> {
  await db.query('DELETE FROM user_metadata WHERE user_id = ANY($1::text[])', [userIds]);
}
