import crypto from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { createPool, type PoolMode } from '../../src/db/pool.js';
import { migrate } from '../../src/db/migrate.js';
import { createLogger } from '../../src/logger.js';
import { databaseUrl, testConfig } from '../helper.js';

// The figure docs/operations.md quotes: the same requests directly (named statements) and through PgBouncer in
// transaction mode (unnamed statements, a transaction per statement). Printed, never asserted on time.
const serverUrl = inject('serverUrl');
const schema = `throughput_${crypto.randomBytes(4).toString('hex')}`;
const pools: pg.Pool[] = [];
const cores: FastifyInstance[] = [];
const requests = 200;
const concurrency = 8;

async function core(connectionString: string, poolMode: PoolMode): Promise<FastifyInstance> {
  const pool = createPool({ connectionString, schema, size: concurrency, poolMode });
  pools.push(pool);
  await migrate(pool, schema);
  const config = testConfig({ bulk_import_worker: false });
  const app = await buildApp({ config, pool, logger: createLogger(config) });
  await app.ready();
  cores.push(app);
  return app;
}

async function perSecond(app: FastifyInstance, run: (app: FastifyInstance, i: number) => Promise<number>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) expect(await run(app, next++)).toBe(200);
    }),
  );
  return requests / ((performance.now() - started) / 1000);
}

afterAll(async () => {
  await Promise.all(cores.map((app) => app.close()));
  await pools[0]?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await Promise.all(pools.map((pool) => pool.end()));
});

describe('throughput through the pooler', () => {
  it('prints requests a second: direct (session), direct (transaction mode), PgBouncer (transaction mode)', async () => {
    const setups = [
      ['direct, session mode', await core(serverUrl, 'session')],
      ['direct, transaction mode', await core(serverUrl, 'transaction')],
      ['PgBouncer, transaction mode', await core(databaseUrl, 'transaction')],
    ] as const;
    await setups[0][1].inject({ method: 'POST', url: '/recipe/signup', payload: { email: 'bench@example.com', password: 'a-password-1' } });
    const workloads = {
      'sign-in': (app: FastifyInstance) =>
        app
          .inject({ method: 'POST', url: '/recipe/signin', payload: { email: 'bench@example.com', password: 'a-password-1' } })
          .then((reply) => reply.statusCode),
      'session create': (app: FastifyInstance, i: number) =>
        app
          .inject({
            method: 'POST',
            url: '/recipe/session',
            headers: { 'cdi-version': '5.4' },
            payload: { userId: `u${i}`, userDataInJWT: {}, userDataInDatabase: {}, useDynamicSigningKey: true, enableAntiCsrf: false },
          })
          .then((reply) => reply.statusCode),
    };
    const lines: string[] = [];
    for (const [name, run] of Object.entries(workloads)) {
      const rates: number[] = [];
      for (const [, app] of setups) rates.push(await perSecond(app, run));
      lines.push(
        `${name}: ${setups.map(([label], i) => `${label} ${rates[i].toFixed(0)}/s`).join(', ')}; ` +
          `PgBouncer / direct = ${(rates[2] / rates[0]).toFixed(2)}, transaction mode / session mode direct = ${(rates[1] / rates[0]).toFixed(2)}`,
      );
    }
    console.info(lines.join('\n'));
  }, 180_000);
});
