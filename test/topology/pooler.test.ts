import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/database.js';
import { createPool, type PoolMode } from '../../src/db/pool.js';
import { migrate } from '../../src/db/migrate.js';
import { createLogger } from '../../src/logger.js';
import { testConfig } from '../helper.js';
import { startPgBouncer, type PgBouncer } from './pgbouncer.js';

// Issue 52, item 1: behind PgBouncer in transaction mode, with one server connection shared by two cores of two
// schemas, each core reads and writes its own schema only; the startup parameter a pooler refuses is named.
const serverUrl = inject('serverUrl');
const schemas = [0, 1].map(() => `pooler_${crypto.randomBytes(4).toString('hex')}`);
const direct = createPool({ connectionString: serverUrl, schema: schemas[0], size: 2 });
let bouncer: PgBouncer;
const pools: pg.Pool[] = [];
const cores: FastifyInstance[] = [];

async function startCore(connectionString: string, schema: string, poolMode: PoolMode): Promise<FastifyInstance> {
  const pool = createPool({ connectionString, schema, size: 4, poolMode });
  pools.push(pool);
  await migrate(pool, schema);
  const config = testConfig({ bulk_import_worker: false });
  const core = await buildApp({ config, pool, logger: createLogger(config) });
  await core.ready();
  cores.push(core);
  return core;
}

beforeAll(async () => {
  // One server connection: every transaction of both cores runs on the same PostgreSQL session, one after another.
  bouncer = await startPgBouncer({ serverUrl, poolMode: 'transaction', poolSize: 1 });
});
afterAll(async () => {
  await Promise.all(cores.map((core) => core.close()));
  await Promise.all(pools.map((pool) => pool.end()));
  for (const schema of schemas) await direct.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await direct.end();
  await bouncer.stop();
});

describe('PgBouncer in transaction mode', () => {
  it('keeps two cores of two schemas on one server connection apart', async () => {
    const [a, b] = [await startCore(bouncer.url, schemas[0], 'transaction'), await startCore(bouncer.url, schemas[1], 'transaction')];
    const signUp = (core: FastifyInstance, email: string) =>
      core.inject({ method: 'POST', url: '/recipe/signup', payload: { email, password: 'a-password-1' } });
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => signUp(i % 2 === 0 ? a : b, `user${i}@${i % 2 === 0 ? 'a' : 'b'}.example`)),
    );
    expect(replies.map((reply) => [reply.statusCode, reply.json().status])).toEqual(Array(20).fill([200, 'OK']));
    const emails = async (schema: string) =>
      (await direct.query<{ email: string }>(`SELECT email FROM ${schema}.users ORDER BY email`)).rows.map((row) => row.email);
    expect(await emails(schemas[0])).toEqual(Array.from({ length: 10 }, (_, i) => `user${i * 2}@a.example`).sort());
    expect(await emails(schemas[1])).toEqual(Array.from({ length: 10 }, (_, i) => `user${i * 2 + 1}@b.example`).sort());
    const signIn = await a.inject({
      method: 'POST',
      url: '/recipe/signin',
      payload: { email: 'user0@a.example', password: 'a-password-1' },
    });
    expect(signIn.json().status).toBe('OK');
    const wrongCore = await b.inject({
      method: 'POST',
      url: '/recipe/signin',
      payload: { email: 'user0@a.example', password: 'a-password-1' },
    });
    expect(wrongCore.json()).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
  });

  it('names the setting when the pooler refuses a startup parameter', async () => {
    const withOptions = `${bouncer.url}?options=${encodeURIComponent(`-c search_path=${schemas[0]}`)}`;
    const log = { info: () => {}, debug: () => {} };
    await expect(
      openDatabase(testConfig({ postgresql_connection_uri: withOptions, postgresql_pool_mode: 'transaction' }), log),
    ).rejects.toThrow(
      "the database server or pooler refused the startup parameter 'options': remove 'options' from postgresql_connection_uri " +
        "(the core sets its schema from postgresql_table_schema inside the session or, with postgresql_pool_mode 'transaction', " +
        'inside each transaction), or let the pooler ignore it (PgBouncer: ignore_startup_parameters = options)',
    );
  });
});
