import type pg from 'pg';
import type { Config } from '../config/config.js';
import { createPool } from './pool.js';
import { migrate } from './migrate.js';
import type { EmbeddedDatabase } from './embedded.js';

export interface Database {
  pool: pg.Pool;
  description: string;
  close(): Promise<void>;
  /** The embedded PostgreSQL's data folder; undefined for an external database. */
  embeddedDataDir?: string;
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
export interface DatabaseLog {
  info(message: string): void;
  debug(message: string): void;
}

export async function openDatabase(config: Config, log: DatabaseLog): Promise<Database> {
  let embedded: EmbeddedDatabase | undefined;
  let connectionString = externalConnectionString(config);
  let description: string;
  if (connectionString === undefined) {
    // Loaded only when needed: the package registers process exit hooks as soon as it is imported.
    const { startEmbeddedDatabase } = await import('./embedded.js');
    embedded = await startEmbeddedDatabase(config.embedded_data_dir, (line) => log.debug(`postgres: ${line}`));
    connectionString = embedded.connectionString;
    description = `embedded PostgreSQL, data in ${embedded.dataDir}`;
  } else {
    const url = new URL(connectionString);
    description = `external PostgreSQL at ${url.hostname}:${url.port || 5432}${url.pathname}`;
  }
  const pool = createPool({
    connectionString,
    schema: config.postgresql_table_schema,
    size: config.postgresql_connection_pool_size,
    queryTimeoutMs: config.postgresql_query_timeout_ms,
  });
  try {
    const applied = await migrate(pool, config.postgresql_table_schema);
    if (applied.length > 0) log.info(`applied migrations: ${applied.join(', ')}`);
  } catch (error) {
    await pool.end();
    await embedded?.stop();
    throw error;
  }
  return {
    pool,
    description,
    embeddedDataDir: embedded?.dataDir,
    async close() {
      await pool.end();
      await embedded?.stop();
    },
  };
}
