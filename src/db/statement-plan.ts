import crypto from 'node:crypto';
import pg from 'pg';
import { isStandbyRefusal } from './pg-errors.js';

/**
 * `session`: the connection keeps its server (no pooler, or a pooler in session mode): statements are prepared
 * under a name once per connection and the schema is set once. `transaction`: the server may change after every
 * transaction (PgBouncer `pool_mode = transaction`): statements are unnamed and each transaction sets the schema.
 */
export type PoolMode = 'session' | 'transaction';

interface Plan {
  mode: PoolMode;
  schema: string;
  /** The connection's server answered that it is read-only: it became a standby. */
  onStandby(): void;
}

type QueryInput = string | (pg.QueryConfig & { submit?: unknown });
type Callback = (error: Error | null, result?: pg.QueryResult) => void;
type RawQuery = (input: QueryInput, values?: unknown[]) => Promise<pg.QueryResult>;

// Planning the recipes' statements (CTEs, partial-index ON CONFLICT) costs PostgreSQL more than running them, so
// in session mode every parameterised statement is prepared once per connection under a name derived from its
// text. The cap keeps a statement whose text varied per call from piling up prepared statements on the server.
const maxPreparedPerConnection = 500;

/** Replaces `client.query` by one that follows the pool mode; called once for each new connection. */
export function installStatementPlan(client: pg.PoolClient, plan: Plan): void {
  const raw = client.query.bind(client) as unknown as RawQuery;
  const run = plan.mode === 'session' ? namedStatements(raw) : perTransactionSchema(raw, plan.schema);
  client.query = ((input: QueryInput | ((...args: unknown[]) => unknown), values?: unknown, callback?: unknown) => {
    if (typeof values === 'function') [callback, values] = [values, undefined];
    // Submittables (cursors, streams) keep pg's own path; the project uses none.
    if (typeof input === 'function' || (typeof input === 'object' && typeof input.submit === 'function')) {
      return (raw as (...args: unknown[]) => unknown)(input, values, callback);
    }
    const promise = run(input, values as unknown[] | undefined).catch((error: unknown) => {
      if (isStandbyRefusal(error)) {
        plan.onStandby();
        // Its server is a standby now: the pool must not hand this connection out again.
        void client.end().catch(() => {});
      }
      throw error;
    });
    if (typeof callback !== 'function') return promise;
    promise.then(
      (result) => (callback as Callback)(null, result),
      (error: Error) => (callback as Callback)(error),
    );
    return undefined;
  }) as typeof client.query;
}

// Statement texts are a fixed set (the cap below guards against texts that vary), so each is hashed into its name
// once per process rather than once per query: the user reads' texts are over a kilobyte.
const maxNamedTexts = 2000;
const namesByText = new Map<string, string>();

function statementName(text: string): string {
  let name = namesByText.get(text);
  if (name === undefined) {
    name = crypto.createHash('sha1').update(text).digest('base64url');
    if (namesByText.size < maxNamedTexts) namesByText.set(text, name);
  }
  return name;
}

function namedStatements(raw: RawQuery): RawQuery {
  const prepared = new Set<string>();
  return (input, values) => {
    if (typeof input !== 'string' || !Array.isArray(values) || values.length === 0) return raw(input, values);
    const name = statementName(input);
    if (!prepared.has(name)) {
      if (prepared.size >= maxPreparedPerConnection) return raw(input, values);
      prepared.add(name);
    }
    return raw({ name, text: input, values });
  };
}

// A session-level SET would land on whichever server the pooler lent for that one statement, so the schema is set
// with SET LOCAL inside each transaction, and a statement outside a transaction gets one of its own.
function perTransactionSchema(raw: RawQuery, schema: string): RawQuery {
  const begin = `BEGIN; SET LOCAL search_path TO ${pg.escapeIdentifier(schema)}`;
  let inTransaction = false;
  return async (input, values) => {
    // A name would make it a prepared statement, which outlives the transaction only on the server that parsed it.
    const unnamed = typeof input === 'string' ? input : { ...input, name: undefined };
    const text = (typeof input === 'string' ? input : input.text).trim().toUpperCase();
    if (text === 'BEGIN') {
      inTransaction = true;
      return raw(begin);
    }
    if (text === 'COMMIT' || text === 'ROLLBACK') {
      inTransaction = false;
      return raw(unnamed, values);
    }
    if (inTransaction) return raw(unnamed, values);
    await raw(begin);
    let result: pg.QueryResult;
    try {
      result = await raw(unnamed, values);
    } catch (error) {
      await raw('ROLLBACK').catch(() => {});
      throw error;
    }
    await raw('COMMIT');
    return result;
  };
}
