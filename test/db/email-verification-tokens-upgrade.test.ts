import crypto from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createPool } from '../../src/db/pool.js';
import { migrate } from '../../src/db/migrate.js';
import { databaseUrl } from '../helper.js';

// Tokens made before migration 0045 gave them a tenant: they are public's, and usable there as before.
const schema = `upgrade_${crypto.randomBytes(5).toString('hex')}`;
const pool = createPool({ connectionString: databaseUrl, schema, size: 2 });

afterAll(async () => {
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pool.end();
});

describe('migration 0045', () => {
  it('puts every existing email-verification token in public, and asks a tenant of every new one', async () => {
    await migrate(pool, schema, 43);
    await pool.query(
      `INSERT INTO users (user_id, recipe_id, time_joined, email, password_hash) VALUES ('u1', 'emailpassword', 1, 'a@x.com', '$2a$04$hash')`,
    );
    await pool.query(
      `INSERT INTO email_verification_tokens (token_hash, user_id, email, expires_at) VALUES ('h1', 'u1', 'a@x.com', 10), ('h2', 'u1', 'b@x.com', 20)`,
    );
    expect(await migrate(pool, schema)).toContain('0045_email_verification_tokens_per_tenant');
    const { rows } = await pool.query('SELECT token_hash, tenant_id, user_id, email, expires_at FROM email_verification_tokens ORDER BY 1');
    expect(rows).toEqual([
      { token_hash: 'h1', tenant_id: 'public', user_id: 'u1', email: 'a@x.com', expires_at: 10 },
      { token_hash: 'h2', tenant_id: 'public', user_id: 'u1', email: 'b@x.com', expires_at: 20 },
    ]);
    await expect(
      pool.query(`INSERT INTO email_verification_tokens (token_hash, user_id, email, expires_at) VALUES ('h3', 'u1', 'a@x.com', 30)`),
    ).rejects.toThrow(/tenant_id/);
    await expect(
      pool.query(
        `INSERT INTO email_verification_tokens (token_hash, tenant_id, user_id, email, expires_at) VALUES ('h3', 'nope', 'u1', 'a@x.com', 30)`,
      ),
    ).rejects.toThrow(/email_verification_tokens__tenant_id_fkey/);
  });
});
