import crypto from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createPool } from '../../src/db/pool.js';
import { migrate } from '../../src/db/migrate.js';
import { databaseUrl } from '../helper.js';

// A database filled under the schema before account linking, then upgraded in place.
const schema = `upgrade_${crypto.randomBytes(5).toString('hex')}`;
const pool = createPool({ connectionString: databaseUrl, schema, size: 2 });

afterAll(async () => {
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pool.end();
});

const tablesBefore = ['users', 'user_id_mappings', 'email_verifications', 'user_metadata', 'user_roles', 'emailpassword_reset_tokens'];

async function snapshot(table: string): Promise<unknown[]> {
  const { rows } = await pool.query(`SELECT * FROM ${table} t ORDER BY 1, t::text`);
  return rows;
}

describe('the account-linking migration', () => {
  it('turns every existing user into a standalone login method and loses nothing', async () => {
    await migrate(pool, schema, 10);
    await pool.query(
      `INSERT INTO users (user_id, recipe_id, time_joined, email, password_hash)
         SELECT 'ep-' || i, 'emailpassword', 1000 + i, 'ep' || i || '@example.com', '$2a$04$hash' FROM generate_series(1, 50) i`,
    );
    await pool.query(
      `INSERT INTO users (user_id, recipe_id, time_joined, email, third_party_id, third_party_user_id)
         SELECT 'tp-' || i, 'thirdparty', 2000 + i, 'ep' || i || '@example.com', 'google', 'g-' || i FROM generate_series(1, 30) i`,
    );
    await pool.query(
      `INSERT INTO users (user_id, recipe_id, time_joined, email, phone_number)
         SELECT 'pl-' || i, 'passwordless', 3000 + i, CASE WHEN i % 2 = 0 THEN 'pl' || i || '@example.com' END, '+1555000' || lpad(i::text, 4, '0')
         FROM generate_series(1, 20) i`,
    );
    await pool.query(`INSERT INTO user_id_mappings (user_id, external_user_id, external_user_id_info)
                      SELECT user_id, 'ext-' || user_id, 'info' FROM users WHERE user_id LIKE '%1%'`);
    await pool.query(
      `INSERT INTO email_verifications (user_id, email) SELECT user_id, email FROM users WHERE email IS NOT NULL AND time_joined % 3 = 0`,
    );
    await pool.query(`INSERT INTO user_metadata (user_id, metadata) SELECT user_id, '{"plan":"pro"}' FROM users WHERE time_joined % 4 = 0`);
    await pool.query(`INSERT INTO roles (role) VALUES ('admin')`);
    await pool.query(
      `INSERT INTO user_roles (user_id, tenant_id, role) SELECT user_id, 'public', 'admin' FROM users WHERE time_joined % 5 = 0`,
    );
    await pool.query(
      `INSERT INTO emailpassword_reset_tokens (token_hash, user_id, email, expires_at) VALUES ('t', 'ep-1', 'ep1@example.com', 1)`,
    );
    const before = await Promise.all(tablesBefore.map(snapshot));

    // Later migrations follow these; this test is about the account-linking upgrade.
    expect((await migrate(pool, schema)).slice(0, 3)).toEqual([
      '0011_account_linking',
      '0012_email_verification_tokens',
      '0013_account_groups_refresh_by_key',
    ]);

    expect(await Promise.all(tablesBefore.map(snapshot))).toEqual(before);
    const groups = await pool.query(
      `SELECT count(*)::int AS groups,
              count(*) FILTER (WHERE g.is_primary)::int AS primary_users,
              count(*) FILTER (WHERE u.time_joined = g.time_joined AND u.tenant_id = g.tenant_id)::int AS same_time
         FROM users u JOIN user_groups g ON g.group_id = u.user_id`,
    );
    expect(groups.rows[0]).toEqual({ groups: 100, primary_users: 0, same_time: 100 });
    const ids = await pool.query(`SELECT count(*) FILTER (WHERE user_id = group_id)::int AS own, count(*)::int AS total FROM user_ids`);
    expect(ids.rows[0]).toEqual({ own: 100, total: 100 });
    expect((await pool.query('SELECT count(*)::int AS n FROM primary_account_infos')).rows[0].n).toBe(0);

    // Deleting an upgraded user still takes everything keyed by it along.
    await pool.query(`DELETE FROM users WHERE user_id = 'ep-11'`);
    const left = await pool.query(
      `SELECT (SELECT count(*) FROM user_id_mappings WHERE user_id = 'ep-11')::int AS mappings,
              (SELECT count(*) FROM user_ids WHERE user_id = 'ep-11')::int AS ids,
              (SELECT count(*) FROM user_groups WHERE group_id = 'ep-11')::int AS groups,
              (SELECT count(*) FROM user_id_mappings)::int AS all_mappings`,
    );
    expect(left.rows[0]).toEqual({ mappings: 0, ids: 0, groups: 0, all_mappings: (before[1] as unknown[]).length - 1 });

    // A user created after the upgrade is a standalone login method in a group of its own.
    await pool.query(
      `INSERT INTO users (user_id, recipe_id, time_joined, email, password_hash) VALUES ('new', 'emailpassword', 5, 'new@example.com', 'h')`,
    );
    const created = await pool.query(
      `SELECT g.group_id, g.is_primary, g.time_joined FROM user_ids i JOIN user_groups g USING (group_id) WHERE i.user_id = 'new'`,
    );
    expect(created.rows).toEqual([{ group_id: 'new', is_primary: false, time_joined: 5 }]);
  });
});
