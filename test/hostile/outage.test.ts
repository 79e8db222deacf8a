import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { buildApp } from '../../src/app.js';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/db/embedded.js';
import { createPool } from '../../src/db/pool.js';
import { migrate } from '../../src/db/migrate.js';
import { createLogger } from '../../src/logger.js';
import { testConfig } from '../helper.js';
import { bcryptHash } from './support/routes.js';

// PostgreSQL stops under load and comes back on the same port. Its own embedded server, never the shared one.
// While it is down requests must fail with 503 and Retry-After, never 500; once it is back the same core must serve
// again; every write that was answered 200 must be in the database.
const outageMs = Number(process.env.OUTAGE_MS ?? 2000);
const loops = 6;

interface Outcome {
  kind: 'import' | 'code' | 'bulk';
  key: string;
  statusCode: number;
  retryAfter: string | string[] | undefined;
  body: string;
  startedAt: number;
  latencyMs: number;
}

describe('PostgreSQL restart under load', () => {
  let dir: string;
  let database: EmbeddedDatabase;
  let pool: pg.Pool;
  let app: FastifyInstance;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'identity-core-outage-'));
    // PostgreSQL runs as the postgres user when the tests run as root; it must reach its data folder.
    fs.chmodSync(dir, 0o755);
    database = await startEmbeddedDatabase(path.join(dir, 'data'), () => {});
    pool = createPool({ connectionString: database.connectionString, schema: 'outage', size: 10 });
    await migrate(pool, 'outage');
    const config = testConfig();
    app = await buildApp({ config, pool, logger: createLogger(config) });
    await app.ready();
  });

  afterAll(async () => {
    await app?.close();
    await pool?.end();
    await database?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  // Found by the restart test: a connection lost while checked out but between queries (a transaction waiting on
  // a hash) was an unhandled 'error' event, which ends a Node process.
  it('survives a checked-out connection dying between two queries', async () => {
    const client = await pool.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const closed = new Promise((resolve) =>
      (client as unknown as { connection: { stream: net.Socket } }).connection.stream.once('close', resolve),
    );
    await pool.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
    await closed;
    await expect(client.query('SELECT 1')).rejects.toThrow();
    client.release(true);
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it(
    `fails fast during a ${outageMs} ms outage, recovers without a restart and loses no acknowledged write`,
    async () => {
      const outcomes: Outcome[] = [];
      let counter = 0;
      let running = true;
      const request = async (kind: Outcome['kind']) => {
        const key = `${kind}-${counter++}@example.com`;
        const startedAt = Date.now();
        const { url, payload } = {
          import: { url: '/recipe/user/passwordhash/import', payload: { email: key, passwordHash: bcryptHash } },
          code: { url: '/recipe/signinup/code', payload: { email: key } },
          bulk: {
            url: '/bulk-import/users',
            payload: {
              users: [{ loginMethods: [{ recipeId: 'emailpassword', email: key, passwordHash: bcryptHash, hashingAlgorithm: 'bcrypt' }] }],
            },
          },
        }[kind];
        const response = await app.inject({ method: 'POST', url, payload });
        outcomes.push({
          kind,
          key,
          statusCode: response.statusCode,
          retryAfter: response.headers['retry-after'],
          body: response.body,
          startedAt,
          latencyMs: Date.now() - startedAt,
        });
      };
      const load = Promise.all(
        Array.from({ length: loops }, async (_, loop) => {
          while (running) await request((['import', 'code', 'bulk'] as const)[loop % 3]);
        }),
      );

      const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      await wait(700);
      const stoppedAt = Date.now();
      await database.stop();
      const downAt = Date.now();
      await wait(outageMs);
      const restartAt = Date.now();
      database = await startEmbeddedDatabase(path.join(dir, 'data'), () => {}, database.port);
      const upAt = Date.now();
      // Serve again within a deadline, then a little longer so recovery is not a fluke.
      const recoveredBy = upAt + 15_000;
      while (Date.now() < recoveredBy && !outcomes.some((outcome) => outcome.startedAt >= upAt && outcome.statusCode === 200))
        await wait(50);
      await wait(1500);
      running = false;
      await load;

      const during = outcomes.filter((outcome) => outcome.startedAt >= downAt && outcome.startedAt < restartAt);
      const failures = outcomes.filter((outcome) => outcome.statusCode !== 200);
      const firstRecovery = outcomes.find((outcome) => outcome.startedAt >= upAt && outcome.statusCode === 200);
      // Once one request got through, every later one must: no dead connection may linger in the pool.
      const recoveredAt = firstRecovery ? firstRecovery.startedAt + firstRecovery.latencyMs : Infinity;
      const after = outcomes.filter((outcome) => outcome.startedAt > recoveredAt);

      expect(during.length).toBeGreaterThan(10);
      const unavailable = ['The database is unavailable, retry after 1 seconds\n', 'The database is busy, retry after 1 seconds\n'];
      expect(during.filter((outcome) => !unavailable.includes(outcome.body) || outcome.statusCode !== 503)).toEqual([]);
      expect(failures.filter((outcome) => outcome.statusCode !== 503 || outcome.retryAfter !== '1')).toEqual([]);
      expect(firstRecovery).toBeDefined();
      expect(after.length).toBeGreaterThan(10);
      expect(after.every((outcome) => outcome.statusCode === 200)).toBe(true);

      // Queued users acknowledged before or during the outage are imported once the worker runs again.
      await app.services.bulkImportWorker.processUntilEmpty();
      const acknowledged = outcomes.filter((outcome) => outcome.statusCode === 200);
      const keysOf = (kind: Outcome['kind']) => acknowledged.filter((outcome) => outcome.kind === kind).map((outcome) => outcome.key);
      const stored = await pool.query<{ users: number; devices: number; queued: number }>(
        `SELECT (SELECT count(*)::int FROM users WHERE email = ANY($1)) AS users,
              (SELECT count(*)::int FROM passwordless_devices WHERE email = ANY($2)) AS devices,
              (SELECT count(*)::int FROM bulk_import_users) AS queued`,
        [[...keysOf('import'), ...keysOf('bulk')], keysOf('code')],
      );
      expect(stored.rows[0]).toEqual({ users: keysOf('import').length + keysOf('bulk').length, devices: keysOf('code').length, queued: 0 });
      console.info(
        `outage: stop took ${downAt - stoppedAt} ms, down ${restartAt - downAt} ms, start took ${upAt - restartAt} ms, ` +
          `first 200 ${firstRecovery!.startedAt + firstRecovery!.latencyMs - upAt} ms after start; ${outcomes.length} requests, ` +
          `${failures.length} failed (max latency ${Math.max(...failures.map((outcome) => outcome.latencyMs))} ms), ` +
          `${acknowledged.length} acknowledged writes all present`,
      );
    },
    60_000 + outageMs,
  );

  it('bounds the wait when the database accepts connections but never answers', async () => {
    // A black hole where PostgreSQL should be: TCP connects, nothing ever comes back.
    const sockets: net.Socket[] = [];
    const hole = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => hole.listen(0, '127.0.0.1', resolve));
    const { port } = hole.address() as net.AddressInfo;
    const deadPool = createPool({ connectionString: `postgresql://postgres:x@127.0.0.1:${port}/postgres`, schema: 'outage', size: 4 });
    const config = testConfig();
    const deadApp = await buildApp({ config, pool: deadPool, logger: createLogger(config) });
    try {
      const started = Date.now();
      const answers = await Promise.all([
        deadApp.inject({ method: 'POST', url: '/recipe/signinup/code', payload: { email: 'a@example.com' } }),
        deadApp.inject({
          method: 'POST',
          url: '/recipe/user/passwordhash/import',
          payload: { email: 'b@example.com', passwordHash: bcryptHash },
        }),
        deadApp.inject({ method: 'GET', url: '/user/id?userId=x' }),
        deadApp.inject({ method: 'GET', url: '/hello' }),
      ]);
      const elapsed = Date.now() - started;
      // The hole never answers, so these answers come from the pool giving up after its wait (5 s): the overload
      // answer, which tells the client when to come back.
      expect(answers.map((answer) => [answer.statusCode, answer.headers['retry-after'], answer.body])).toEqual(
        Array(4).fill([503, '1', 'The database is busy, retry after 1 seconds\n']),
      );
      expect(elapsed).toBeGreaterThanOrEqual(4500);
    } finally {
      sockets.forEach((socket) => socket.destroy());
      await deadApp.close();
      await deadPool.end();
      hole.close();
    }
  }, 30_000);
});
