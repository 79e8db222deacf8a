import type { Queryable } from '../db/pool.js';
import { PUBLIC_TENANT } from '../recipes/multitenancy/tenant-id.js';
import type { RecipeId } from '../users/repository.js';
import type { PageToken } from '../users/pagination-token.js';

// All SQL of bulk import: the queue table, and the set-based statements that import a batch of users. Every
// statement takes whole arrays (unnest) so a batch costs a fixed number of round trips, whatever its size.

export type QueueStatus = 'NEW' | 'PROCESSING' | 'FAILED';

export interface QueueRow {
  id: string;
  status: QueueStatus;
  raw_data: Record<string, unknown>;
  primary_user_id: string | null;
  error_message: string | null;
  created_at: number;
  updated_at: number;
}

// The users travel as one JSON array (each with its `id`): PostgreSQL parses it once, which is several times faster
// than a text[] of 10,000 JSON documents, each escaped by the driver and parsed again on its own.
export async function insertQueueRows(db: Queryable, usersJson: string, now: number): Promise<void> {
  await db.query(
    `INSERT INTO bulk_import_users (id, status, raw_data, created_at, updated_at)
     SELECT u->>'id', 'NEW', u, $2, $2 FROM jsonb_array_elements($1::jsonb) AS u`,
    [usersJson, now],
  );
}

// Users imported at once (not queued) that the database refused: stored as the worker would have left them.
export async function insertFailedQueueRows(db: Queryable, usersJson: string, messages: string[], now: number): Promise<void> {
  await db.query(
    `INSERT INTO bulk_import_users (id, status, raw_data, error_message, created_at, updated_at)
     SELECT u.value->>'id', 'FAILED', u.value, m.message, $3, $3
     FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS u(value, n) JOIN unnest($2::text[]) WITH ORDINALITY AS m(message, n) USING (n)`,
    [usersJson, messages, now],
  );
}

// Newest first; the cursor is inclusive (contract §10.4).
export async function listQueueRows(
  db: Queryable,
  status: QueueStatus | undefined,
  limit: number,
  // The token's id is a queue row's id, its time the row's created_at.
  cursor?: PageToken,
): Promise<QueueRow[]> {
  const conditions: string[] = [];
  const values: unknown[] = [limit];
  if (status !== undefined) {
    values.push(status);
    conditions.push(`status = $${values.length}`);
  }
  if (cursor !== undefined) {
    values.push(cursor.time, cursor.id);
    conditions.push(`(created_at < $${values.length - 1} OR (created_at = $${values.length - 1} AND id <= $${values.length}))`);
  }
  const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
  const { rows } = await db.query<QueueRow>(
    `SELECT id, status, raw_data, primary_user_id, error_message, created_at, updated_at FROM bulk_import_users
     ${where} ORDER BY created_at DESC, id DESC LIMIT $1`,
    values,
  );
  return rows;
}

export async function countQueueRowsByStatus(db: Queryable): Promise<Record<QueueStatus, number>> {
  const { rows } = await db.query<{ status: QueueStatus; count: number }>(
    'SELECT status, count(*)::int AS count FROM bulk_import_users GROUP BY status',
  );
  const counts: Record<QueueStatus, number> = { NEW: 0, PROCESSING: 0, FAILED: 0 };
  for (const row of rows) counts[row.status] = row.count;
  return counts;
}

export async function countQueueRows(db: Queryable, status: QueueStatus): Promise<number> {
  const { rows } = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM bulk_import_users WHERE status = $1', [status]);
  return rows[0].count;
}

export async function deleteQueueRows(db: Queryable, ids: string[]): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>('DELETE FROM bulk_import_users WHERE id = ANY($1::text[]) RETURNING id', [ids]);
  return rows.map((row) => row.id);
}

// Every statement of an import batch reads or writes rows by key, but the planner does not know that before the
// first ANALYZE (a fresh install; a machine with autovacuum off; any import that outruns autoanalyze). It then uses
// default selectivities: `tenant_id = 'public'` looks like a handful of rows and 8,000 keys in an array look like
// the whole table, so it scans a whole index and filters each row against the batch, and that cost grows with the
// table (a million-user import turns quadratic). A plan made while the tables were empty is worse: it prefers
// sequential scans, and a connection keeps a generic plan. So a batch transaction keeps sequential and bitmap
// scans, hash and merge joins and sorts out of the plans made inside it, generic ones included (the foreign-key
// checks' too): what is left for a key lookup is an index probe. Custom plans would also do, but re-planning the
// foreign-key check of every inserted row costs more than the insert. set_config(..., true) ends with the transaction.
// A plan the connection cached before the batch (the users trigger's statements after a sign-up, say, planned while
// the tables were empty) would outlive these settings, so the batch first drops the connection's cached plans.
export async function useKeyDrivenPlans(db: Queryable): Promise<void> {
  await db.query('DISCARD PLANS');
  await db.query(
    `SELECT set_config('enable_seqscan', 'off', true),
       set_config('enable_bitmapscan', 'off', true), set_config('enable_hashjoin', 'off', true),
       set_config('enable_mergejoin', 'off', true), set_config('enable_sort', 'off', true)`,
  );
}

// Rows left PROCESSING by an interrupted run first, then NEW ones, oldest first. SKIP LOCKED: rows another
// transaction (another core, another loop of this one) holds are left to it; the locks last until our commit, which
// also deletes or fails every claimed row, so no row is ever imported twice. Two statements, because an ordered scan
// of the (status, created_at, id) index only exists per status. Runs after useKeyDrivenPlans: a planner that
// believes the queue tiny would sort every NEW row (seconds at a million rows, per batch).
export async function claimQueueRows(db: Queryable, limit: number): Promise<Pick<QueueRow, 'id' | 'raw_data'>[]> {
  const claim = (status: QueueStatus, count: number) =>
    db.query<Pick<QueueRow, 'id' | 'raw_data'>>(
      `SELECT id, raw_data FROM bulk_import_users WHERE status = $1
       ORDER BY created_at, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [status, count],
    );
  const interrupted = (await claim('PROCESSING', limit)).rows;
  if (interrupted.length === limit) return interrupted;
  return interrupted.concat((await claim('NEW', limit - interrupted.length)).rows);
}

export async function finishQueueRows(
  db: Queryable,
  importedIds: string[],
  failed: { id: string; message: string }[],
  now: number,
): Promise<void> {
  if (importedIds.length > 0) await db.query('DELETE FROM bulk_import_users WHERE id = ANY($1::text[])', [importedIds]);
  if (failed.length === 0) return;
  await db.query(
    `UPDATE bulk_import_users b SET status = 'FAILED', error_message = f.message, updated_at = $3
     FROM unnest($1::text[], $2::text[]) AS f(id, message) WHERE b.id = f.id`,
    [failed.map((row) => row.id), failed.map((row) => row.message), now],
  );
}

export async function findExistingRoles(db: Queryable, roles: string[]): Promise<string[]> {
  if (roles.length === 0) return [];
  const { rows } = await db.query<{ role: string }>(
    `SELECT k.role FROM unnest($1::text[]) AS k(role) CROSS JOIN LATERAL (SELECT 1 FROM roles r WHERE r.role = k.role LIMIT 1) AS hit`,
    [roles],
  );
  return rows.map((row) => row.role);
}

export type ConflictKind =
  'emailpassword-email' | 'passwordless-email' | 'passwordless-phone' | 'thirdparty' | 'external-id' | 'role' | 'account-info';

// Keys of a login method's values, each paired with a tenant it is to be in (unique per tenant, T-2).
interface TenantKeys {
  tenantIds: string[];
  keys: string[];
}

export interface ConflictProbe {
  emailPasswordEmails: TenantKeys;
  passwordlessEmails: TenantKeys;
  passwordlessPhones: TenantKeys;
  thirdParty: { tenantIds: string[]; ids: string[]; userIds: string[] };
  externalUserIds: string[];
  roles: string[];
  // What users imported as primary users would reserve: tenant_id, info_type and info_value of primary_account_infos.
  accountInfos: { tenantIds: string[]; types: string[]; values: string[] };
}

// One round trip for every uniqueness rule a batch can break (contract §2, AL-2.2, per tenant: T-2), plus the roles
// that do exist. A value held in a tenant comes back as "tenant\nvalue", a third-party pair as "tenant\nid\nuserId",
// a primary user's value as "tenant\ntype\nvalue". Each key probes its unique index on its own (a LATERAL subquery
// with LIMIT 1 cannot be turned into a join that scans the table), and the literal recipe_id selects the partial
// index: `column = ANY($1)` lets a planner without statistics scan the whole index instead (see useKeyDrivenPlans).
// Sent unprepared, so it is planned for its input also outside a batch transaction (dry run, single-user import).
// `holder` (account infos only): the old id, else the id, of the primary user that reserves the value.
export async function findImportConflicts(
  db: Queryable,
  probe: ConflictProbe,
): Promise<{ kind: ConflictKind; key: string; holder: string | null }[]> {
  const probeUsers = (column: 'email' | 'phone_number', recipe: RecipeId) =>
    `SELECT 1 FROM login_method_tenants u WHERE u.tenant_id = k.tenant_id AND u.recipe_id = '${recipe}' AND u.${column} = k.key LIMIT 1`;
  // A tenant list of public only is sent as NULL (unnest pads it with NULLs), so a public import sends what it did.
  const inTenants = (tenants: string, columns: string, ...arrays: string[]) =>
    `(SELECT coalesce(t.tenant_id, 'public') AS tenant_id, ${columns} FROM unnest(${tenants}::text[], ${arrays.map((a) => `${a}::text[]`).join(', ')})
        AS t(tenant_id, ${columns})) AS k`;
  const { rows } = await db.query<{ kind: ConflictKind; key: string; holder: string | null }>({
    text: `SELECT 'emailpassword-email' AS kind, k.tenant_id || E'\\n' || k.key AS key, NULL::text AS holder
       FROM ${inTenants('$1', 'key', '$2')} CROSS JOIN LATERAL (${probeUsers('email', 'emailpassword')}) AS hit
     UNION ALL SELECT 'passwordless-email', k.tenant_id || E'\\n' || k.key, NULL FROM ${inTenants('$3', 'key', '$4')}
       CROSS JOIN LATERAL (${probeUsers('email', 'passwordless')}) AS hit
     UNION ALL SELECT 'passwordless-phone', k.tenant_id || E'\\n' || k.key, NULL FROM ${inTenants('$5', 'key', '$6')}
       CROSS JOIN LATERAL (${probeUsers('phone_number', 'passwordless')}) AS hit
     UNION ALL SELECT 'thirdparty', k.tenant_id || E'\\n' || k.id || E'\\n' || k.user_id, NULL
       FROM ${inTenants('$7', 'id, user_id', '$8', '$9')}
       CROSS JOIN LATERAL (SELECT 1 FROM login_method_tenants u WHERE u.tenant_id = k.tenant_id AND u.recipe_id = 'thirdparty'
         AND u.third_party_id = k.id AND u.third_party_user_id = k.user_id LIMIT 1) AS hit
     UNION ALL SELECT 'external-id', k.key, NULL FROM unnest($10::text[]) AS k(key)
       CROSS JOIN LATERAL (SELECT 1 FROM user_id_mappings m WHERE m.external_user_id = k.key LIMIT 1) AS hit
     UNION ALL SELECT 'role', k.key, NULL FROM unnest($11::text[]) AS k(key)
       CROSS JOIN LATERAL (SELECT 1 FROM roles r WHERE r.role = k.key LIMIT 1) AS hit
     UNION ALL SELECT 'account-info', k.tenant_id || E'\\n' || k.type || E'\\n' || k.value, hit.holder
       FROM ${inTenants('$12', 'type, value', '$13', '$14')}
       CROSS JOIN LATERAL (SELECT coalesce(m.external_user_id, r.group_id) AS holder FROM primary_account_infos r
         LEFT JOIN user_id_mappings m ON m.user_id = r.group_id
         WHERE r.tenant_id = k.tenant_id AND r.info_type = k.type AND r.info_value = k.value LIMIT 1) AS hit`,
    values: [
      publicOrList(probe.emailPasswordEmails.tenantIds),
      probe.emailPasswordEmails.keys,
      publicOrList(probe.passwordlessEmails.tenantIds),
      probe.passwordlessEmails.keys,
      publicOrList(probe.passwordlessPhones.tenantIds),
      probe.passwordlessPhones.keys,
      publicOrList(probe.thirdParty.tenantIds),
      probe.thirdParty.ids,
      probe.thirdParty.userIds,
      probe.externalUserIds,
      probe.roles,
      publicOrList(probe.accountInfos.tenantIds),
      probe.accountInfos.types,
      probe.accountInfos.values,
    ],
  });
  return rows;
}

const publicOrList = (tenantIds: string[]) => (tenantIds.every((tenantId) => tenantId === PUBLIC_TENANT) ? null : tenantIds);
