import { describe, expect, it } from 'vitest';
import { constraintNames, foreignKeyViolationOf, uniqueViolationOf, violatedConstraintOf } from '../../src/db/pg-errors.js';
import { useTestDatabase } from '../helper.js';

const db = useTestDatabase();

async function failureOf(sql: string, values: unknown[] = []): Promise<unknown> {
  return db.pool.query(sql, values).then(
    () => expect.unreachable('the statement succeeded'),
    (error: unknown) => error,
  );
}

describe('database error translation', () => {
  it('knows only constraint and index names the migrated schema has', async () => {
    const { rows } = await db.pool.query(
      `SELECT conname AS name FROM pg_constraint WHERE connamespace = $1::text::regnamespace
       UNION SELECT indexname FROM pg_indexes WHERE schemaname = $1::text`,
      [db.schema],
    );
    const present = new Set(rows.map((row: { name: string }) => row.name));
    expect(constraintNames.filter((name) => !present.has(name))).toEqual([]);
  });

  it('names the unique index a duplicate hits, and nothing else', async () => {
    const insert = `INSERT INTO users (user_id, tenant_id, recipe_id, email, password_hash, time_joined)
                    VALUES ($1, 'public', 'emailpassword', 'a@example.com', 'h', 1)`;
    await db.pool.query(insert, ['u1']);
    const duplicate = await failureOf(insert, ['u2']);
    expect(uniqueViolationOf(duplicate)).toBe('login_method_tenants__email_key');
    expect(foreignKeyViolationOf(duplicate)).toBeUndefined();
    expect(violatedConstraintOf(duplicate)).toBe('login_method_tenants__email_key');
  });

  it('names the foreign key a row without its user breaks', async () => {
    const orphan = await failureOf(`INSERT INTO user_id_mappings (user_id, external_user_id) VALUES ('missing', 'ext')`);
    expect(foreignKeyViolationOf(orphan)).toBe('user_id_mappings__user_id_fkey');
    expect(uniqueViolationOf(orphan)).toBeUndefined();
  });

  it('answers nothing for errors that are not constraint violations', async () => {
    expect(uniqueViolationOf(await failureOf('SELECT * FROM no_such_table'))).toBeUndefined();
    expect(violatedConstraintOf(new Error('plain'))).toBeUndefined();
    expect(uniqueViolationOf(undefined)).toBeUndefined();
  });
});
