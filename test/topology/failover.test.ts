import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { createPool } from '../../src/db/pool.js';
import { migrate } from '../../src/db/migrate.js';
import { createLogger } from '../../src/logger.js';
import { testConfig } from '../helper.js';
import { startPgBouncer, type PgBouncer } from './pgbouncer.js';

// Issue 52, item 2: a host list with target_session_attrs=read-write. Two PgBouncers stand for two servers: the
// first is the primary, the second a standby (its sessions read-only, so writes fail with 25006 as on a real one).
// Under load the primary falls, the standby is promoted, and the same core carries on without a restart: every
// answer is 200 or 503 with Retry-After, every acknowledged sign-up is stored, refresh chains go on without theft.
const serverUrl = inject('serverUrl');
const schema = `failover_${crypto.randomBytes(4).toString('hex')}`;
const standbyName = `standby_${crypto.randomBytes(4).toString('hex')}`;
const readOnly = `application_name=${standbyName} connect_query='SET default_transaction_read_only = on'`;
const direct = createPool({ connectionString: serverUrl, schema, size: 2 });
let primary: PgBouncer;
let standby: PgBouncer;
let core: FastifyInstance;
let pool: ReturnType<typeof createPool>;

interface Answer {
  kind: 'signup' | 'refresh';
  statusCode: number;
  retryAfter: unknown;
  body: string;
  at: number;
}

beforeAll(async () => {
  await migrate(direct, schema);
  primary = await startPgBouncer({ serverUrl, poolMode: 'transaction' });
  standby = await startPgBouncer({ serverUrl, poolMode: 'transaction', databaseExtra: readOnly });
  const hosts = `127.0.0.1:${primary.port},127.0.0.1:${standby.port}`;
  pool = createPool({
    connectionString: `postgresql://postgres@${hosts}/${new URL(serverUrl).pathname.slice(1)}?target_session_attrs=read-write`,
    schema,
    size: 6,
    poolMode: 'transaction',
    connectionTimeoutMs: 2000,
  });
  const config = testConfig({ bulk_import_worker: false });
  core = await buildApp({ config, pool, logger: createLogger(config) });
  await core.ready();
});
afterAll(async () => {
  await core?.close();
  await pool?.end();
  await direct.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await direct.end();
  await primary?.stop();
  await standby?.stop();
});

describe('failover to a promoted standby', () => {
  it('answers 200 or 503 with Retry-After throughout, and serves again without a restart', async () => {
    const answers: Answer[] = [];
    const record = (kind: Answer['kind'], reply: { statusCode: number; headers: Record<string, unknown>; body: string }) => {
      answers.push({ kind, statusCode: reply.statusCode, retryAfter: reply.headers['retry-after'], body: reply.body, at: Date.now() });
      return reply;
    };
    const sessionHeaders = { 'cdi-version': '5.6' };
    const chains: string[] = [];
    for (let i = 0; i < 4; i++) {
      const created = await core.inject({
        method: 'POST',
        url: '/recipe/session',
        headers: sessionHeaders,
        payload: { userId: `chain${i}`, userDataInJWT: {}, userDataInDatabase: {}, useDynamicSigningKey: true, enableAntiCsrf: false },
      });
      expect(created.statusCode).toBe(200);
      chains.push(created.json().refreshToken.token as string);
    }
    const acknowledged: string[] = [];
    let running = true;
    let counter = 0;
    const signUps = async () => {
      while (running) {
        const email = `u${counter++}@example.com`;
        const reply = record(
          'signup',
          await core.inject({ method: 'POST', url: '/recipe/signup', payload: { email, password: 'a-password-1' } }),
        );
        if (reply.statusCode === 200) acknowledged.push(email);
      }
    };
    const refreshes = async (chain: number) => {
      while (running) {
        const reply = record(
          'refresh',
          await core.inject({
            method: 'POST',
            url: '/recipe/session/refresh',
            headers: sessionHeaders,
            payload: { refreshToken: chains[chain], enableAntiCsrf: false, useDynamicSigningKey: true },
          }),
        );
        if (reply.statusCode === 200) chains[chain] = (JSON.parse(reply.body) as { refreshToken: { token: string } }).refreshToken.token;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const load = Promise.all([signUps(), signUps(), ...chains.map((_, chain) => refreshes(chain))]);
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    await wait(1000);
    await primary.stop();
    const fellAt = Date.now();
    await wait(1500);
    // The promotion: the standby's sessions become writable, and its old read-only server sessions end.
    await standby.reconfigure('');
    await direct.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [standbyName]);
    const promotedAt = Date.now();
    const servedBy = promotedAt + 20_000;
    while (Date.now() < servedBy && !answers.some((answer) => answer.at > promotedAt && answer.statusCode === 200)) await wait(50);
    await wait(1500);
    running = false;
    await load;

    const firstServed = answers.find((answer) => answer.at > promotedAt && answer.statusCode === 200)!;
    const gap = answers.filter((answer) => answer.statusCode !== 200);
    expect(firstServed).toBeDefined();
    expect(answers.filter((answer) => answer.at > fellAt && answer.at < promotedAt).length).toBeGreaterThan(5);
    expect(
      gap.filter(
        (answer) =>
          answer.statusCode !== 503 ||
          answer.retryAfter !== '1' ||
          !['The database is unavailable, retry after 1 seconds\n', 'The database is busy, retry after 1 seconds\n'].includes(answer.body),
      ),
    ).toEqual([]);
    expect(answers.filter((answer) => answer.at > firstServed.at + 500 && answer.statusCode !== 200)).toEqual([]);
    const stored = await direct.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.users WHERE email = ANY($1)`, [
      acknowledged,
    ]);
    expect(stored.rows[0].n).toBe(acknowledged.length);
    // Every chain still refreshes: no answer was a theft or an unauthorised token.
    for (const token of chains) {
      const reply = await core.inject({
        method: 'POST',
        url: '/recipe/session/refresh',
        headers: sessionHeaders,
        payload: { refreshToken: token, enableAntiCsrf: false, useDynamicSigningKey: true },
      });
      expect([reply.statusCode, reply.json().status]).toEqual([200, 'OK']);
    }
    console.info(
      `failover: ${answers.length} answers, ${gap.length} were 503; first 200 ${firstServed.at - promotedAt} ms after the promotion ` +
        `(${firstServed.at - fellAt} ms after the fall); ${acknowledged.length} acknowledged sign-ups all stored`,
    );
  }, 90_000);
});
