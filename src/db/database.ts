import type pg from 'pg';
import type { Config } from '../config/config.js';
import { createPool } from './pool.js';
import { migrate } from './migrate.js';
import { startEmbeddedDatabase, type EmbeddedDatabase } from './embedded.js';

export interface Database {
  pool: pg.Pool;
  description: string;
  close(): Promise<void>;
}

export function externalConnectionString(config: Config): string | undefined {
  if (config.postgresql_connection_uri === undefined && config.postgresql_host === undefined) return undefined;
  const url = new URL(config.postgresql_connection_uri ?? 'postgresql://localhost:5432/supertokens');
  if (config.postgresql_host !== undefined) url.hostname = config.postgresql_host;
  if (config.postgresql_port !== undefined) url.port = String(config.postgresql_port);
  if (config.postgresql_user !== undefined) url.username = encodeURIComponent(config.postgresql_user);
  if (config.postgresql_password !== undefined) url.password = encodeURIComponent(config.postgresql_password);
  if (config.postgresql_database_name !== undefined) url.pathname = `/${config.postgresql_database_name}`;
  return url.toString();
}

// Opens the configured PostgreSQL (or starts the embedded one) and brings its schema up to date.
export async function openDatabase(config: Config, log: (line: string) => void): Promise<Database> {
  let embedded: EmbeddedDatabase | undefined;
  let connectionString = externalConnectionString(config);
  let description: string;
  if (connectionString === undefined) {
    embedded = await startEmbeddedDatabase(config.embedded_data_dir, log);
    connectionString = embedded.connectionString;
    description = `embedded PostgreSQL, data in ${embedded.dataDir}`;
  } else {
    const url = new URL(connectionString);
    description = `external PostgreSQL at ${url.hostname}:${url.port || 5432}${url.pathname}`;
  }
  const pool = createPool({ connectionString, schema: config.postgresql_table_schema, size: config.postgresql_connection_pool_size });
  try {
    const applied = await migrate(pool, config.postgresql_table_schema);
    if (applied.length > 0) log(`applied migrations: ${applied.join(', ')}`);
  } catch (error) {
    await pool.end();
    await embedded?.stop();
    throw error;
  }
  return {
    pool,
    description,
    async close() {
      await pool.end();
      await embedded?.stop();
    },
  };
}
