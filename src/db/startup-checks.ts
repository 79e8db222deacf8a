import type pg from 'pg';

/** A standby (or a server in read-only mode): every write would fail, migrations included. */
export async function isReadOnlyServer(pool: pg.Pool): Promise<boolean> {
  const { rows } = await pool.query<{ transaction_read_only: string }>('SHOW transaction_read_only');
  return rows[0]?.transaction_read_only === 'on';
}

// PgBouncer answers "unsupported startup parameter: <name>" and closes; managed poolers say much the same.
const startupParameterRefusal = /unsupported startup parameter:?\s*"?([A-Za-z_.]+)"?/i;

/** Turns a pooler's refusal of a startup parameter into a message that names the setting to change. */
export function explainStartupRefusal(error: unknown): unknown {
  const message = error instanceof Error ? error.message : '';
  const match = startupParameterRefusal.exec(message);
  if (!match) return error;
  return new Error(
    `the database server or pooler refused the startup parameter '${match[1]}': remove '${match[1]}' from ` +
      `postgresql_connection_uri (the core sets its schema from postgresql_table_schema inside the session or, with ` +
      `postgresql_pool_mode 'transaction', inside each transaction), or let the pooler ignore it ` +
      `(PgBouncer: ignore_startup_parameters = ${match[1]})`,
    { cause: error },
  );
}
