import crypto from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, inject } from 'vitest';
import type pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import type { Config } from '../src/config/config.js';
import { createPool } from '../src/db/pool.js';
import { migrate } from '../src/db/migrate.js';
import { createLogger } from '../src/logger.js';

export const databaseUrl = inject('databaseUrl');
export const testPoolMode = inject('databasePoolMode');

export interface TestDatabase {
  pool: pg.Pool;
  schema: string;
  drop(): Promise<void>;
}

// A fresh schema with every migration applied, on the run's database server.
export async function createTestDatabase(): Promise<TestDatabase> {
  const schema = `test_${crypto.randomBytes(6).toString('hex')}`;
  const pool = createPool({ connectionString: databaseUrl, schema, size: 20, poolMode: testPoolMode });
  await migrate(pool, schema);
  return {
    pool,
    schema,
    async drop() {
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await pool.end();
    },
  };
}

export class TestClock {
  constructor(public nowMs = Date.now()) {}
  now = () => this.nowMs;
  advance(ms: number) {
    this.nowMs += ms;
  }
}

// Cheap hash parameters so tests stay fast; real algorithms, never a mock.
// Failed sign-ins are not held to a floor here; test/hostile/signin-timing.test.ts measures that floor.
export const testConfigDefaults = {
  bcrypt_log_rounds: 4,
  argon2_memory_kb: 1024,
  argon2_iterations: 1,
  argon2_parallelism: 1,
  signin_failure_min_duration_ms: 0,
  // TOTP secrets are sealed at rest; a fixed test key (never a production one).
  totp_secret_keys: `test:${Buffer.alloc(32, 7).toString('base64')}`,
};

export function testConfig(overrides: Record<string, unknown> = {}): Readonly<Config> {
  return loadConfig({ argv: ['--config=test/fixtures/empty.yaml'], overrides: { ...testConfigDefaults, log_level: 'NONE', ...overrides } });
}

export interface TestApp {
  app: FastifyInstance;
  db: TestDatabase;
  clock: TestClock;
  config: Readonly<Config>;
  logs: string[];
  close(): Promise<void>;
}

export async function createTestApp(overrides: Record<string, unknown> = {}, db?: TestDatabase): Promise<TestApp> {
  const database = db ?? (await createTestDatabase());
  const config = testConfig(overrides);
  const clock = new TestClock();
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const app = await buildApp({ config, pool: database.pool, clock: clock.now, logger: createLogger(config, sink) });
  await app.ready();
  return {
    app,
    db: database,
    clock,
    config,
    logs,
    async close() {
      await app.close();
      if (!db) await database.drop();
    },
  };
}

export interface UseTestAppOptions {
  /** Empty every user table before each test. */
  truncateEach?: boolean;
  /** Run on the database of this app (a second core); it is dropped with that app. */
  sharing?: TestApp;
}

/**
 * The lifecycle every app test shares, registered on the enclosing `describe` (or file): a fresh database and app
 * before the first test, both closed and dropped after the last. The returned object is filled in `beforeAll`;
 * `overrides` may be a function when it needs values from an earlier `beforeAll` (a fake server's URL).
 */
export function useTestApp(
  overrides: Record<string, unknown> | (() => Record<string, unknown>) = {},
  options: UseTestAppOptions = {},
): TestApp {
  const t = {} as TestApp;
  beforeAll(async () => {
    Object.assign(t, await createTestApp(typeof overrides === 'function' ? overrides() : overrides, options.sharing?.db));
  });
  afterAll(() => t.close?.());
  if (options.truncateEach) beforeEach(() => truncateAll(t.db));
  return t;
}

/** A fresh database (no app) for the enclosing `describe` or file, dropped after its last test. */
export function useTestDatabase(): TestDatabase {
  const db = {} as TestDatabase;
  beforeAll(async () => {
    Object.assign(db, await createTestDatabase());
  });
  afterAll(() => db.drop?.());
  return db;
}

const userTables = [
  'users',
  'login_method_tenants',
  'user_groups',
  'user_ids',
  'primary_account_infos',
  'user_id_mappings',
  'email_verifications',
  'email_verification_tokens',
  'user_metadata',
  'user_roles',
  'roles',
  'role_permissions',
  'totp_devices',
  'totp_used_codes',
  'recovery_codes',
  'passwordless_devices',
  'passwordless_codes',
  'bulk_import_users',
  'session_info',
  'signin_failure_windows',
  'webauthn_credentials',
  'webauthn_options',
  'webauthn_recover_tokens',
  'dashboard_users',
  'dashboard_sessions',
];

export async function truncateAll(db: TestDatabase): Promise<void> {
  // The bulk-import worker of a running app may hold row locks on these tables; PostgreSQL then picks one side
  // of the deadlock to fail, and if that is the TRUNCATE it simply runs again.
  for (let attempt = 1; ; attempt++) {
    try {
      await db.pool.query(`TRUNCATE ${userTables.join(', ')} CASCADE`);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== '40P01' || attempt === 5) throw error;
    }
  }
}

export async function countRows(db: TestDatabase, table: string): Promise<number> {
  const { rows } = await db.pool.query<{ count: string }>(`SELECT count(*) FROM ${table}`);
  return Number(rows[0].count);
}

// A snapshot of every table, to prove a rejected request wrote nothing.
export async function snapshot(db: TestDatabase): Promise<Record<string, unknown[]>> {
  const result: Record<string, unknown[]> = {};
  for (const table of userTables) result[table] = (await db.pool.query(`SELECT * FROM ${table} t ORDER BY t::text`)).rows;
  return result;
}

export interface Reply {
  statusCode: number;
  body: string;
  json: any;
  contentType: string | undefined;
  headers: Record<string, string | string[] | number | undefined>;
}

export async function call(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH',
  url: string,
  options: { body?: unknown; headers?: Record<string, string>; query?: Record<string, string> } = {},
): Promise<Reply> {
  const response = await app.inject({
    method,
    url,
    query: options.query,
    headers: { ...(options.body !== undefined && { 'content-type': 'application/json' }), ...options.headers },
    payload: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
  });
  let json: unknown;
  try {
    json = JSON.parse(response.body);
  } catch {
    json = undefined;
  }
  return {
    statusCode: response.statusCode,
    body: response.body,
    json,
    contentType: response.headers['content-type'] as string | undefined,
    headers: response.headers,
  };
}

// Plain-text error replies end with a newline (contract §1.8); compare the trimmed text.
export function expectText(reply: Reply): string {
  return reply.body.trim();
}
