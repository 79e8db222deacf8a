import pg from 'pg';

// A pool or a client inside a transaction: every repository function takes one of these first.
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

// bigint columns (ms timestamps) come back as JS numbers; every value here is far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export interface PoolOptions {
  connectionString: string;
  schema: string;
  size: number;
  queryTimeoutMs?: number;
}

export function createPool({ connectionString, schema, size, queryTimeoutMs = 60_000 }: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: size,
    // Fail fast while the database is down instead of queueing requests behind a dead server.
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30000,
    // A server that accepts connections but stops answering (frozen, network split) would hold requests forever.
    query_timeout: queryTimeoutMs,
    keepAlive: true,
    options: `-c search_path=${pg.escapeIdentifier(schema)}`,
  });
  // An idle client losing its server (a restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  // The pool drops that listener while a client is checked out: losing the server between two queries of a
  // transaction would then be an unhandled 'error' event. The next query on the client fails instead.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}
