import type pg from 'pg';
import type { Config } from '../config/config.js';
import { createPool } from './pool.js';
import { parseConnectionString, parseHostList } from './hosts.js';
import { explainStartupRefusal, isReadOnlyServer } from './startup-checks.js';
import { checkMigrated, migrate } from './migrate.js';
import type { EmbeddedDatabase } from './embedded.js';

export interface Database {
  pool: pg.Pool;
  description: string;
  close(): Promise<void>;
  /** The embedded PostgreSQL's data folder; undefined for an external database. */
  embeddedDataDir?: string;
}

/**
 * The configured PostgreSQL as one connection string, or undefined for the embedded one. The host list of a
 * multi-host URI (hosts.ts) is kept as written; postgresql_host may itself list several hosts.
 */
export function externalConnectionString(config: Config): string | undefined {
  if (config.postgresql_connection_uri === undefined && config.postgresql_host === undefined) return undefined;
  let target;
  try {
    target = parseConnectionString(config.postgresql_connection_uri ?? 'postgresql://localhost:5432/supertokens');
  } catch (error) {
    throw new Error(`postgresql_connection_uri: ${(error as Error).message}`, { cause: error });
  }
  const url = new URL(target.connectionString);
  if (config.postgresql_user !== undefined) url.username = encodeURIComponent(config.postgresql_user);
  if (config.postgresql_password !== undefined) url.password = encodeURIComponent(config.postgresql_password);
  if (config.postgresql_database_name !== undefined) url.pathname = `/${config.postgresql_database_name}`;
  if (target.readWrite) url.searchParams.set('target_session_attrs', 'read-write');
  let hosts = target.hosts;
  if (config.postgresql_host !== undefined) hosts = parseHostList(config.postgresql_host, config.postgresql_port ?? 5432);
  else if (config.postgresql_port !== undefined) hosts = hosts.map((host) => ({ ...host, port: config.postgresql_port! }));
  const hostList = hosts.map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`).join(',');
  return url.toString().replace(/^(postgres(?:ql)?:\/\/(?:[^@/?#]*@)?)[^/?#]*/, `$1${hostList}`);
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
    const target = parseConnectionString(connectionString);
    const hosts = target.hosts.map(({ host, port }) => `${host}:${port}`).join(', ');
    description = `external PostgreSQL at ${hosts}${new URL(target.connectionString).pathname}${target.readWrite ? ' (read-write)' : ''}`;
  }
  const pool = createPool({
    connectionString,
    schema: config.postgresql_table_schema,
    size: config.postgresql_connection_pool_size,
    queryTimeoutMs: config.postgresql_query_timeout_ms,
    connectionTimeoutMs: config.postgresql_connection_timeout_ms,
    poolMode: config.postgresql_pool_mode,
  });
  try {
    // A standby answers every write with an error: its schema is the primary's, migrated by a core pointed there.
    if (await isReadOnlyServer(pool)) {
      await checkMigrated(pool, config.postgresql_table_schema);
      log.info('the database is read-only (a standby): migrations are left to a core connected to the primary');
    } else {
      const applied = await migrate(pool, config.postgresql_table_schema);
      if (applied.length > 0) log.info(`applied migrations: ${applied.join(', ')}`);
    }
  } catch (error) {
    await pool.end();
    await embedded?.stop();
    throw explainStartupRefusal(error);
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
