import type { TestProject } from 'vitest/node';
import { startPgBouncer, type PgBouncer } from './pgbouncer.js';

let bouncer: PgBouncer | undefined;

// npm run test:topology: the feature tests run through a PgBouncer in transaction mode in front of the machine's
// PostgreSQL; the topology tests also get the server's own URL.
export async function setup(project: TestProject): Promise<void> {
  const serverUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  bouncer = await startPgBouncer({ serverUrl, poolMode: 'transaction' });
  project.provide('databaseUrl', bouncer.url);
  project.provide('databaseKind', 'pgbouncer-transaction');
  project.provide('databasePoolMode', 'transaction');
  project.provide('serverUrl', serverUrl);
}

export async function teardown(): Promise<void> {
  await bouncer?.stop();
}
