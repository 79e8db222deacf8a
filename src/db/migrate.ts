import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { withTransaction } from './transaction.js';

const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');
// Any constant works; it only has to be the same for every core sharing a database.
const migrationLockKey = 3567_0001;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function readMigrations(dir = migrationsDir): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => ({ version: Number(file.slice(0, 4)), name: file.slice(5, -4), sql: fs.readFileSync(path.join(dir, file), 'utf8') }));
}

// Applies the migrations not yet recorded, in order, in one transaction that holds an advisory lock, so that
// cores starting together on one database apply each migration exactly once. `untilVersion` stops after that
// version (upgrade tests fill a database under an older schema).
export async function migrate(pool: pg.Pool, schema: string, untilVersion = Infinity): Promise<string[]> {
  const migrations = readMigrations().filter((migration) => migration.version <= untilVersion);
  return withTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [migrationLockKey, schema]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${client.escapeIdentifier(schema)}`);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer NOT NULL, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT schema_migrations__pkey PRIMARY KEY (version))`);
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((row) => row.version));
    const appliedNow: string[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
      appliedNow.push(`${String(migration.version).padStart(4, '0')}_${migration.name}`);
    }
    return appliedNow;
  });
}

/** On a read-only server: every migration this core knows must already be there, applied through the primary. */
export async function checkMigrated(pool: pg.Pool, schema: string): Promise<void> {
  const { rows: tables } = await pool.query<{ found: boolean }>(
    `SELECT to_regclass(format('%I.schema_migrations', $1::text)) IS NOT NULL AS found`,
    [schema],
  );
  const { rows } = tables[0].found ? await pool.query<{ version: number }>('SELECT version FROM schema_migrations') : { rows: [] };
  const applied = new Set(rows.map((row) => row.version));
  const missing = readMigrations().filter((migration) => !applied.has(migration.version));
  if (missing.length === 0) return;
  const names = missing.map((migration) => `${String(migration.version).padStart(4, '0')}_${migration.name}`);
  throw new Error(
    `the database is read-only (a standby) and schema '${schema}' lacks migration${names.length > 1 ? 's' : ''} ` +
      `${names.slice(0, 3).join(', ')}${names.length > 3 ? ', …' : ''}: start a core connected to the primary first`,
  );
}
