import crypto from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createPool } from '../../src/db/pool.js';
import { migrate, readMigrations } from '../../src/db/migrate.js';
import { databaseUrl } from '../helper.js';

const schema = `migrate_${crypto.randomBytes(5).toString('hex')}`;
const pools = [0, 1, 2].map(() => createPool({ connectionString: databaseUrl, schema, size: 2 }));

afterAll(async () => {
  await pools[0].query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await Promise.all(pools.map((pool) => pool.end()));
});

describe('migrations', () => {
  it('are applied exactly once when several cores start together on an empty database', async () => {
    const results = await Promise.all(pools.map((pool) => migrate(pool, schema)));
    const expected = readMigrations().map((m) => `${String(m.version).padStart(4, '0')}_${m.name}`);
    expect(results.flat().sort()).toEqual(expected);
    expect(results.filter((applied) => applied.length > 0)).toHaveLength(1);
    const { rows } = await pools[0].query('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((row) => row.version)).toEqual(readMigrations().map((m) => m.version));
    expect(await migrate(pools[1], schema)).toEqual([]);
  });

  it('create the tables, constraints and indexes the services rely on', async () => {
    const tables = await pools[0].query(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`, [
      schema,
    ]);
    expect(tables.rows.map((row) => row.table_name)).toEqual(
      expect.arrayContaining([
        'bulk_import_users',
        'email_verifications',
        'passwordless_codes',
        'passwordless_devices',
        'roles',
        'schema_migrations',
        'session_bridge_exchanges',
        'session_bridge_refusals',
        'user_id_mappings',
        'user_metadata',
        'user_roles',
        'users',
      ]),
    );
    const constraints = await pools[0].query(
      `SELECT conname FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = $1 AND c.contype <> 'n'`,
      [schema],
    );
    const names = constraints.rows.map((row) => row.conname);
    expect(names).toEqual(
      expect.arrayContaining([
        'users__pkey',
        'users__recipe_id_check',
        'user_id_mappings__external_user_id_key',
        'user_id_mappings__user_id_fkey',
        'passwordless_codes__link_code_hash_key',
        'passwordless_codes__device_fkey',
        'bulk_import_users__status_check',
        'session_bridge_exchanges__pkey',
        'session_bridge_exchanges__user_id_fkey',
        'session_bridge_refusals__pkey',
        'email_verification_tokens__tenant_id_fkey',
      ]),
    );
    // Every constraint is named on purpose (<table>__<what>); NOT NULL constraints (listed since PostgreSQL 18) aside.
    for (const name of names) expect(name).toMatch(/^[a-z_]+__[a-z_]+$/);
    const indexes = await pools[0].query(`SELECT indexname FROM pg_indexes WHERE schemaname = $1`, [schema]);
    expect(indexes.rows.map((row) => row.indexname)).toEqual(
      expect.arrayContaining([
        'login_method_tenants__email_key',
        'login_method_tenants__passwordless_phone_number_key',
        'login_method_tenants__thirdparty_key',
        'users__time_joined_asc_idx',
        'users__time_joined_desc_idx',
        'users__lazy_legacy_user_id_idx',
        'session_bridge_exchanges__source_exchanged_at_idx',
      ]),
    );
  });

  it('enforce the per-recipe uniqueness rules of the data model', async () => {
    const insert = (id: string, recipe: string, email: string | null, phone: string | null = null) =>
      pools[0].query(
        `INSERT INTO users (user_id, recipe_id, time_joined, email, phone_number, password_hash, third_party_id, third_party_user_id)
         VALUES ($1, $2, 1, $3, $4, $5, $6, $7)`,
        [
          id,
          recipe,
          email,
          phone,
          recipe === 'emailpassword' ? 'h' : null,
          recipe === 'thirdparty' ? 'google' : null,
          recipe === 'thirdparty' ? id : null,
        ],
      );
    await insert('a', 'emailpassword', 'x@example.com');
    await insert('b', 'passwordless', 'x@example.com');
    await insert('c', 'thirdparty', 'x@example.com');
    await insert('d', 'thirdparty', 'x@example.com');
    await insert('g', 'webauthn', 'x@example.com');
    await insert('h', 'passwordless', null, '+15550000001');
    await insert('i', 'passwordless', null, '+15550000002');
    for (const [id, recipe] of [
      ['e', 'emailpassword'],
      ['j', 'passwordless'],
      ['k', 'webauthn'],
    ]) {
      await expect(insert(id, recipe, 'x@example.com')).rejects.toMatchObject({
        code: '23505',
        constraint: 'login_method_tenants__email_key',
      });
    }
    await expect(insert('f', 'passwordless', null)).rejects.toMatchObject({
      code: '23514',
      constraint: 'users__passwordless_fields_check',
    });
  });
});

describe('the pool', () => {
  it('gives up on a query that gets no answer within the query timeout', async () => {
    const pool = createPool({ connectionString: databaseUrl, schema, size: 1, queryTimeoutMs: 200 });
    await expect(pool.query('SELECT pg_sleep(5)')).rejects.toThrow('Query read timeout');
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await pool.end();
  });
});
