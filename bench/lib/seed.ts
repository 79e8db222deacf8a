import crypto from 'node:crypto';
import type pg from 'pg';
import type { Credential } from './credentials.js';

/**
 * Email-password users written straight into the core's schema, as the import route stores them (the hash
 * verbatim), so the sign-in benchmarks depend only on the migration and not on the import route.
 */
export async function insertEmailPasswordUsers(pool: pg.Pool, credentials: Credential[]): Promise<void> {
  const now = Date.now();
  await pool.query(
    `INSERT INTO users (user_id, tenant_id, recipe_id, time_joined, email, password_hash)
     SELECT id, 'public', 'emailpassword', $1, email, hash FROM unnest($2::text[], $3::text[], $4::text[]) AS t(id, email, hash)`,
    [now, credentials.map(() => crypto.randomUUID()), credentials.map((c) => c.email), credentials.map((c) => c.hash)],
  );
}

/**
 * Existing users of every recipe, pending passwordless codes nobody consumed (one per ten users), then ANALYZE:
 * a scenario then measures the plans of a live database. Statistics of never-analyzed or empty-when-analyzed
 * tables make PostgreSQL scan whole tables for what should be primary-key lookups (see bench/README.md).
 */
export async function seedExistingUsers(pool: pg.Pool, count: number): Promise<void> {
  const now = Date.now();
  await pool.query(
    `INSERT INTO users (user_id, tenant_id, recipe_id, time_joined, email, phone_number, password_hash)
     SELECT gen_random_uuid()::text, 'public', recipe, $1::bigint - i,
            CASE WHEN recipe = 'passwordless' AND i % 2 = 0 THEN NULL ELSE 'existing-' || i || '@bench.example' END,
            CASE WHEN recipe = 'passwordless' AND i % 2 = 0 THEN '+1555' || lpad(i::text, 7, '0') END,
            CASE WHEN recipe = 'emailpassword' THEN '$2b$10$' || repeat('a', 53) END
     FROM generate_series(1, $2::int) AS i, LATERAL (SELECT CASE WHEN i % 3 = 0 THEN 'passwordless' ELSE 'emailpassword' END AS recipe) AS r`,
    [now, count],
  );
  await pool.query(
    `WITH d AS (
       INSERT INTO passwordless_devices (tenant_id, device_id_hash, email, link_code_salt, failed_attempts, created_at)
       SELECT 'public', 'pending-device-' || i, 'pending-' || i || '@bench.example', 'c2FsdA==', 0, $1::bigint
       FROM generate_series(1, $2::int) AS i RETURNING device_id_hash)
     INSERT INTO passwordless_codes (tenant_id, code_id, device_id_hash, link_code_hash, created_at)
     SELECT 'public', gen_random_uuid()::text, device_id_hash, 'pending-' || device_id_hash, $1::bigint FROM d`,
    [now, Math.ceil(count / 10)],
  );
  // Named tables only: a bare ANALYZE would process every schema in the database.
  await pool.query(
    'ANALYZE users, user_ids, user_groups, login_method_tenants, user_id_mappings, email_verifications, passwordless_devices, passwordless_codes',
  );
}
