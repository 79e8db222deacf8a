import pg from 'pg';
import { HostRotation, parseConnectionString } from './hosts.js';
import { isQuickHostFailure, isStandbyRefusal } from './pg-errors.js';
import { installStatementPlan, type PoolMode } from './statement-plan.js';

export type { PoolMode } from './statement-plan.js';

// A pool or a client inside a transaction: every repository function takes one of these first.
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

// bigint columns (ms timestamps) come back as JS numbers; every value here is far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export interface PoolOptions {
  /** One host, or libpq's host list with target_session_attrs (hosts.ts). */
  connectionString: string;
  schema: string;
  size: number;
  queryTimeoutMs?: number;
  /** Longest wait for a connection, pooled or new; past it the request answers 503 (error-handler.ts). */
  connectionTimeoutMs?: number;
  /** `transaction` behind a transaction pooler: unnamed statements, the schema set in every transaction. */
  poolMode?: PoolMode;
}

export class StandbyServerError extends Error {
  readonly code = '25006';
  constructor(host: string) {
    super(`${host} is read-only (a standby); target_session_attrs=read-write asks for the primary`);
  }
}

interface RotatingClient extends pg.PoolClient {
  hostIndex: number;
  hostName: string;
}

export function createPool({
  connectionString,
  schema,
  size,
  queryTimeoutMs = 60_000,
  connectionTimeoutMs = 5000,
  poolMode = 'session',
}: PoolOptions): pg.Pool {
  const target = parseConnectionString(connectionString);
  const rotation = new HostRotation(target.hosts);

  // Each new connection goes to the host the rotation prefers; a failure to reach it moves the rotation on.
  class Client extends pg.Client {
    hostIndex: number;
    hostName: string;
    constructor(config?: pg.ClientConfig) {
      super(config);
      const { index, host } = rotation.current();
      this.hostIndex = index;
      this.host = host.host;
      this.port = host.port;
      this.hostName = `${host.host}:${host.port}`;
    }
    // @ts-expect-error pg-pool calls the callback form only; the promise form is kept as is.
    override connect(callback?: (error: Error | undefined) => void) {
      if (!callback) return super.connect();
      super.connect((error: Error | undefined) => {
        if (error) rotation.failed(this.hostIndex);
        callback(error);
      });
    }
  }

  const pool = new pg.Pool({
    connectionString: target.connectionString,
    Client,
    max: size,
    // Fail fast while the database is down instead of queueing requests behind a dead server.
    connectionTimeoutMillis: connectionTimeoutMs,
    idleTimeoutMillis: 30000,
    // A server that accepts connections but stops answering (frozen, network split) would hold requests forever.
    query_timeout: queryTimeoutMs,
    keepAlive: true,
    // The schema is not sent as the `options` startup parameter: PgBouncer and most managed poolers refuse it.
    verify: (client: pg.PoolClient, done: (error?: Error) => void) => {
      const rotating = client as RotatingClient;
      // In session pooling (or without a pooler) the connection keeps its server, so one SET holds for its life.
      const setSchema = poolMode === 'session' ? `SET search_path TO ${pg.escapeIdentifier(schema)}; ` : '';
      const check = target.readWrite ? 'SHOW transaction_read_only' : '';
      const ready = () => {
        installStatementPlan(client, { mode: poolMode, schema, onStandby: () => rotation.failed(rotating.hostIndex) });
        done();
      };
      if (setSchema === '' && check === '') return ready();
      client.query(`${setSchema}${check}`).then(
        (result: pg.QueryResult | pg.QueryResult[]) => {
          const last = Array.isArray(result) ? result[result.length - 1] : result;
          if (check !== '' && (last.rows[0] as { transaction_read_only?: string } | undefined)?.transaction_read_only !== 'off') {
            rotation.failed(rotating.hostIndex);
            return done(new StandbyServerError(rotating.hostName));
          }
          ready();
        },
        (error: Error) => done(error),
      );
    },
  } as pg.PoolConfig);
  // An idle client losing its server (a restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  // The pool drops that listener while a client is checked out: losing the server between two queries of a
  // transaction would then be an unhandled 'error' event. The next query on the client fails instead.
  pool.on('connect', (client) => client.on('error', () => {}));
  if (target.hosts.length > 1) tryEveryHost(pool, target.hosts.length);
  return pool;
}

// One checkout tries each host once, as libpq's connect does, when a host refuses at once or is a standby. A host
// that does not answer costs the whole connection wait and is not retried: the rotation has moved on for the next one.
function tryEveryHost(pool: pg.Pool, hostCount: number): void {
  const connectOnce = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  const connect = async (): Promise<pg.PoolClient> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await connectOnce();
      } catch (error) {
        if (attempt >= hostCount || !(isQuickHostFailure(error) || isStandbyRefusal(error))) throw error;
      }
    }
  };
  pool.connect = ((callback?: (error: Error | undefined, client?: pg.PoolClient, done?: () => void) => void) => {
    if (!callback) return connect();
    connect().then(
      (client) => callback(undefined, client, client.release),
      (error: Error) => callback(error, undefined, () => {}),
    );
  }) as typeof pool.connect;
}
