import type { Queryable } from '../../../src/db/pool.js';

export const fingerprintTables = [
  'users',
  'user_id_mappings',
  'email_verifications',
  'user_metadata',
  'user_roles',
  'roles',
  'passwordless_devices',
  'passwordless_codes',
  'bulk_import_users',
] as const;

export type Fingerprint = Record<(typeof fingerprintTables)[number], string>;

// Per table: the row count and the newest and summed transaction ids that wrote its live rows. An insert changes
// the count and the ids, an update (even to the same values) writes a new row version with a new xmin, a delete
// changes the count: any committed write moves it, and it never reads (or detoasts) row contents, so it stays cheap
// enough to take after each of thousands of requests.
export async function fingerprint(db: Queryable): Promise<Fingerprint> {
  const columns = fingerprintTables.map(
    (table) =>
      `(SELECT count(*) || ':' || coalesce(max(xmin::text::bigint), 0) || ':' || coalesce(sum(xmin::text::bigint), 0) FROM ${table}) AS ${table}`,
  );
  const { rows } = await db.query<Fingerprint>({ name: 'hostile-fingerprint', text: `SELECT ${columns.join(', ')}` });
  return rows[0];
}
