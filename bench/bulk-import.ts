// Bulk-import benchmark (not a test): N users through POST /bulk-import/users in 10,000-user requests until the queue
// is empty, against COPY of the same rows into the same tables. Run: npx vite-node bench/bulk-import.ts [N]
// Env: DATABASE_URL (default the machine's identity_core_dev), BENCH_CONCURRENCY (requests in flight, default 1),
// BENCH_KEEP=1 keeps the schemas, BENCH_LINKED_SHARE=0.1 gives a tenth of the users three login methods;
// BULK_MIGRATION_* and POSTGRESQL_CONNECTION_POOL_SIZE are passed to the core.
import crypto from 'node:crypto';
import { createPool } from '../src/db/pool.js';
import { migrate } from '../src/db/migrate.js';
import { realBcryptHashes, requestBodies } from './bulk-import/generate.js';
import { copyScript, runCopy } from './bulk-import/copy-ceiling.js';
import { startCore } from './bulk-import/core-process.js';

const total = Number(process.argv[2] ?? process.env.BENCH_USERS ?? 100_000);
const perRequest = 10_000;
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 1);
const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/identity_core_dev';
const suffix = crypto.randomBytes(4).toString('hex');
const importSchema = `bench_bulk_${suffix}`;
const copySchema = `bench_copy_${suffix}`;
const log = (message: string) => process.stderr.write(`${message}\n`);
const seconds = (ms: number) => (ms / 1000).toFixed(2);

async function main(): Promise<void> {
  const importPool = createPool({ connectionString: databaseUrl, schema: importSchema, size: 2 });
  const copyPool = createPool({ connectionString: databaseUrl, schema: copySchema, size: 2 });
  try {
    await migrate(importPool, importSchema);
    await migrate(copyPool, copySchema);
    log(`generating ${total} users (${Math.ceil(total / perRequest)} request bodies)`);
    const hashes = realBcryptHashes(8);
    const baseTime = Date.parse('2020-01-01T00:00:00Z');
    const bodies = requestBodies(total, perRequest, hashes, baseTime);
    const passThrough = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => /^(BULK_MIGRATION_|BULK_IMPORT_|POSTGRESQL_CONNECTION_POOL_SIZE)/.test(name)),
    ) as Record<string, string>;

    const core = await startCore(databaseUrl, importSchema, passThrough);
    let enqueueMs = 0;
    let importMs = 0;
    let peakRssMb = 0;
    try {
      const started = performance.now();
      let next = 0;
      const post = async () => {
        while (next < bodies.length) {
          const body = bodies[next++];
          const reply = await fetch(`${core.url}/bulk-import/users`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body,
          });
          if (reply.status !== 200)
            throw new Error(`POST /bulk-import/users answered ${reply.status}: ${(await reply.text()).slice(0, 300)}`);
          await reply.arrayBuffer();
        }
      };
      // Imported-row progress from the statistics collector: free, unlike a count(*) of a growing table.
      const progress = setInterval(() => {
        importPool
          .query<{ n: number }>('SELECT n_tup_ins::int AS n FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = $2', [
            importSchema,
            'users',
          ])
          .then(({ rows }) => log(`  ${seconds(performance.now() - started)} s: ${rows[0]?.n ?? 0} users imported`))
          .catch(() => {});
      }, 10_000);
      try {
        await Promise.all(Array.from({ length: concurrency }, post));
        enqueueMs = performance.now() - started;
        log(`enqueued in ${seconds(enqueueMs)} s; waiting for the queue to drain`);
        // A cheap probe straight to the database: a count(*) of a million-row queue every poll would load the server.
        for (;;) {
          const { rows } = await importPool.query("SELECT EXISTS (SELECT 1 FROM bulk_import_users WHERE status <> 'FAILED') AS pending");
          if (!rows[0].pending) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        importMs = performance.now() - started;
      } finally {
        clearInterval(progress);
      }
      peakRssMb = core.peakRssMb();
      const counts = await (await fetch(`${core.url}/bulk-import/users/count`)).json();
      log(`queue after the run: ${JSON.stringify(counts)}`);
    } finally {
      await core.stop();
    }
    const { rows } = await importPool.query('SELECT count(*)::int AS users FROM user_groups');
    if (rows[0].users !== total) throw new Error(`expected ${total} imported users, found ${rows[0].users}`);

    log('COPY ceiling: same rows, same tables, one transaction through psql');
    const script = copyScript(copySchema, total, hashes, baseTime);
    const copyMs = await runCopy(databaseUrl, script);

    const endToEnd = total / (importMs / 1000);
    const ceiling = total / (copyMs / 1000);
    const lines = [
      `users                        ${total}`,
      `enqueue (HTTP, ${concurrency} in flight)    ${seconds(enqueueMs)} s  (${Math.round(total / (enqueueMs / 1000))} users/s)`,
      `end to end (queue empty)     ${seconds(importMs)} s  (${Math.round(endToEnd)} users/s)`,
      `COPY ceiling (psql)          ${seconds(copyMs)} s  (${Math.round(ceiling)} users/s)`,
      `end to end / ceiling         ${(endToEnd / ceiling).toFixed(2)}`,
      `core peak RSS                ${peakRssMb.toFixed(0)} MB`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    if (!process.env.BENCH_KEEP) {
      await importPool.query(`DROP SCHEMA IF EXISTS ${importSchema} CASCADE`);
      await copyPool.query(`DROP SCHEMA IF EXISTS ${copySchema} CASCADE`);
    }
    await importPool.end();
    await copyPool.end();
  }
}

main().catch((error: unknown) => {
  log(`bulk-import bench failed: ${error instanceof Error ? error.stack : String(error)}`);
  process.exit(1);
});
