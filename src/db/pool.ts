import crypto from 'node:crypto';
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
  /** Longest wait for a connection, pooled or new; past it the request answers 503 (error-handler.ts). */
  connectionTimeoutMs?: number;
}

export function createPool({ connectionString, schema, size, queryTimeoutMs = 60_000, connectionTimeoutMs = 5000 }: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: size,
    // Fail fast while the database is down instead of queueing requests behind a dead server.
    connectionTimeoutMillis: connectionTimeoutMs,
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
  pool.on('connect', (client) => {
    client.on('error', () => {});
    prepareParameterisedQueries(client);
  });
  return pool;
}

// Planning the recipes' statements (CTEs, partial-index ON CONFLICT) costs PostgreSQL more than running them, so
// every parameterised statement is prepared once per connection under a name derived from its text. The cap keeps
// a statement whose text varied per call from piling up prepared statements on the server.
const maxPreparedPerConnection = 500;

function prepareParameterisedQueries(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const prepared = new Set<string>();
  client.query = ((text: unknown, values?: unknown, callback?: unknown) => {
    if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0) return query(text, values, callback);
    const name = crypto.createHash('sha1').update(text).digest('base64url');
    if (!prepared.has(name)) {
      if (prepared.size >= maxPreparedPerConnection) return query(text, values, callback);
      prepared.add(name);
    }
    return query({ name, text, values }, callback);
  }) as typeof client.query;
}
