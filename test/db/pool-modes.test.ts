import crypto from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/database.js';
import { createPool } from '../../src/db/pool.js';
import { migrate } from '../../src/db/migrate.js';
import { withTransaction } from '../../src/db/transaction.js';
import { createLogger } from '../../src/logger.js';
import { databaseUrl, testConfig } from '../helper.js';

// Issue 52: the schema is set without the `options` startup parameter (which poolers refuse), transaction pooling
// gets unnamed statements and a schema per transaction, and a host list with a read-write target skips hosts that
// are down or read-only.
const schema = `pool_${crypto.randomBytes(5).toString('hex')}`;
const server = new URL(databaseUrl);
const withQuery = (extra: string) => `${databaseUrl}${databaseUrl.includes('?') ? '&' : '?'}${extra}`;
// Every session of this URL is read-only, as on a standby.
const readOnlyUrl = withQuery(`options=${encodeURIComponent('-c default_transaction_read_only=on')}`);
const pools: pg.Pool[] = [];
const pool = (options: Partial<Parameters<typeof createPool>[0]>) => {
  const created = createPool({ connectionString: databaseUrl, schema, size: 2, connectionTimeoutMs: 2000, ...options });
  pools.push(created);
  return created;
};

let closedPort: number;
beforeAll(async () => {
  await migrate(pool({}), schema);
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as net.AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
});
afterAll(async () => {
  await pools[0].query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await Promise.all(pools.map((each) => each.end()));
});

describe.each(['session', 'transaction'] as const)('pool mode %s', (poolMode) => {
  it('runs every statement in the configured schema, inside a transaction or not', async () => {
    const subject = pool({ poolMode });
    const outside = await subject.query<{ schema: string }>('SELECT current_schema() AS schema WHERE $1::int = 1', [1]);
    const inside = await withTransaction(subject, async (client) => {
      const { rows } = await client.query<{ schema: string }>('SELECT current_schema() AS schema WHERE $1::int = 1', [1]);
      await client.query('INSERT INTO user_metadata (user_id, metadata) VALUES ($1, $2)', [`pool-${poolMode}`, '{}']);
      return rows;
    });
    expect([outside.rows, inside]).toEqual([[{ schema }], [{ schema }]]);
    const stored = await pools[0].query(`SELECT user_id FROM ${schema}.user_metadata WHERE user_id = $1`, [`pool-${poolMode}`]);
    expect(stored.rows).toEqual([{ user_id: `pool-${poolMode}` }]);
  });

  it(poolMode === 'session' ? 'prepares named statements' : 'prepares no named statement', async () => {
    const subject = pool({ poolMode, size: 1 });
    const client = await subject.connect();
    try {
      await client.query('SELECT $1::int AS one', [1]);
      await client.query({ name: 'explicitly-named', text: 'SELECT $1::int AS two', values: [2] });
      const { rows } = await client.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name');
      expect(rows.length).toBe(poolMode === 'session' ? 2 : 0);
    } finally {
      client.release();
    }
  });
});

describe('a host list', () => {
  const hostsUrl = (first: string) => databaseUrl.replace(`@${server.host}`, `@${first},${server.host}`);

  it('skips a host that refuses connections, and keeps going to the one that answered', async () => {
    const subject = pool({ connectionString: hostsUrl(`127.0.0.1:${closedPort}`) });
    const { rows } = await subject.query<{ schema: string }>('SELECT current_schema() AS schema');
    expect(rows).toEqual([{ schema }]);
    expect(subject.totalCount).toBe(1);
  });

  it('with target_session_attrs=read-write and only read-only servers: the core answers 503 with Retry-After', async () => {
    const readOnlyHosts = readOnlyUrl.replace(`@${server.host}`, `@${server.host},${server.host}`);
    const subject = pool({ connectionString: `${readOnlyHosts}&target_session_attrs=read-write` });
    await expect(subject.query('SELECT 1')).rejects.toThrow(`${server.hostname}:${server.port} is read-only (a standby)`);
    const config = testConfig();
    const app = await buildApp({ config, pool: subject, logger: createLogger(config) });
    try {
      const reply = await app.inject({
        method: 'POST',
        url: '/recipe/signup',
        payload: { email: 'a@example.com', password: 'a-password-1' },
      });
      expect([reply.statusCode, reply.headers['retry-after'], reply.body]).toEqual([
        503,
        '1',
        'The database is unavailable, retry after 1 seconds\n',
      ]);
    } finally {
      await app.close();
    }
  });
});

describe('a read-only server without a target', () => {
  it('answers a write with 503 and Retry-After, never 500', async () => {
    const subject = pool({ connectionString: readOnlyUrl });
    const config = testConfig();
    const app = await buildApp({ config, pool: subject, logger: createLogger(config) });
    try {
      const reply = await app.inject({
        method: 'POST',
        url: '/recipe/signup',
        payload: { email: 'b@example.com', password: 'a-password-1' },
      });
      expect([reply.statusCode, reply.headers['retry-after'], reply.body]).toEqual([
        503,
        '1',
        'The database is unavailable, retry after 1 seconds\n',
      ]);
      const read = await app.inject({ method: 'GET', url: '/user/id', query: { userId: 'nobody' } });
      expect([read.statusCode, read.json()]).toEqual([200, { status: 'UNKNOWN_USER_ID_ERROR' }]);
    } finally {
      await app.close();
    }
  });

  const log = { info: () => {}, debug: () => {} };
  it('never runs migrations there: a migrated schema is used as it is', async () => {
    const database = await openDatabase(testConfig({ postgresql_connection_uri: readOnlyUrl, postgresql_table_schema: schema }), log);
    await database.close();
  });

  it('refuses to start on a schema the primary has not migrated, naming what is missing', async () => {
    const fresh = `never_${crypto.randomBytes(4).toString('hex')}`;
    await expect(openDatabase(testConfig({ postgresql_connection_uri: readOnlyUrl, postgresql_table_schema: fresh }), log)).rejects.toThrow(
      `the database is read-only (a standby) and schema '${fresh}' lacks migrations 0001_`,
    );
    const { rows } = await pools[0].query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [fresh]);
    expect(rows).toEqual([]);
  });
});
