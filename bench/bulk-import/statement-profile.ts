// Where the database time of a bulk import goes: runs the app in-process (no HTTP), queues N users, then drains the
// queue, and prints the wall time spent in each SQL statement (summed over connections, so it can exceed the
// elapsed time; it also includes time the event loop was busy before the reply was read).
// Run: npx vite-node bench/bulk-import/statement-profile.ts [N]
import crypto from 'node:crypto';
import type pg from 'pg';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { createPool } from '../../src/db/pool.js';
import { migrate } from '../../src/db/migrate.js';
import { realBcryptHashes, requestBodies } from './generate.js';

const total = Number(process.argv[2] ?? 100_000);
const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/identity_core_dev';
const schema = `bench_statements_${crypto.randomBytes(4).toString('hex')}`;
const spent = new Map<string, { calls: number; ms: number }>();

function timeQueries(target: { query: (...args: never[]) => unknown }): void {
  const query = target.query.bind(target) as (...args: unknown[]) => Promise<unknown>;
  (target as { query: unknown }).query = async (...args: unknown[]) => {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text;
    const key = text.replace(/\s+/g, ' ').slice(0, 70);
    const started = performance.now();
    try {
      return await query(...args);
    } finally {
      const entry = spent.get(key) ?? { calls: 0, ms: 0 };
      entry.calls++;
      entry.ms += performance.now() - started;
      spent.set(key, entry);
    }
  };
}

const pool = createPool({ connectionString: databaseUrl, schema, size: 10 });
timeQueries(pool);
const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<pg.PoolClient>;
const timed = new WeakSet<object>();
(pool as { connect: unknown }).connect = (...args: unknown[]) => {
  if (args.length > 0) return connect(...args);
  return connect().then((client) => {
    if (!timed.has(client)) {
      timeQueries(client);
      timed.add(client);
    }
    return client;
  });
};

try {
  await migrate(pool, schema);
  const config = loadConfig({
    argv: ['--config=test/fixtures/empty.yaml'],
    overrides: { log_level: 'WARN', postgresql_table_schema: schema, bulk_import_worker: false },
  });
  const app = await buildApp({ config, pool });
  await app.ready();
  const bodies = requestBodies(total, 10_000, realBcryptHashes(4), Date.parse('2020-01-01T00:00:00Z'));
  const started = performance.now();
  for (const payload of bodies) {
    const reply = await app.inject({ method: 'POST', url: '/bulk-import/users', payload, headers: { 'content-type': 'application/json' } });
    if (reply.statusCode !== 200) throw new Error(reply.body.slice(0, 300));
  }
  const enqueued = performance.now();
  await app.services.bulkImportWorker.processUntilEmpty();
  const drained = performance.now();
  await app.close();
  process.stdout.write(
    `${total} users: enqueue ${((enqueued - started) / 1000).toFixed(2)} s, drain ${((drained - enqueued) / 1000).toFixed(2)} s\n`,
  );
  for (const [statement, { calls, ms }] of [...spent].sort((a, b) => b[1].ms - a[1].ms).slice(0, 14)) {
    process.stdout.write(`${(ms / 1000).toFixed(2).padStart(8)} s ${String(calls).padStart(6)}  ${statement}\n`);
  }
} finally {
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pool.end();
}
