import crypto from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { withApplicationName } from './cpu-accounting.js';
import type { Credential } from './credentials.js';
import { freePort, startServer, type ServerProcess } from './server-process.js';
import { poolSize } from './servers.js';

const appsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../apps');

/** bench/apps/sdk-app.mjs: Express + supertokens-node pointed at the core; it has no database of its own. */
export async function startSdkApp(coreUrl: string): Promise<ServerProcess> {
  const port = await freePort();
  return startServer({
    name: 'Express + supertokens-node',
    script: path.join(appsDir, 'sdk-app.mjs'),
    port,
    applicationName: `bench-sdk-app-${port}`,
    env: { CORE_URL: coreUrl, PORT: String(port), NODE_ENV: 'production' },
  });
}

/**
 * bench/apps/better-auth-app.mjs on `schema` (created here, its tables by better-auth's own migrations at start),
 * the same pool size as the core's.
 */
export async function startBetterAuthApp(databaseUrl: string, schema: string, pool: pg.Pool): Promise<ServerProcess> {
  await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  const port = await freePort();
  const applicationName = `bench-better-auth-${port}`;
  return startServer({
    name: 'Express + better-auth',
    script: path.join(appsDir, 'better-auth-app.mjs'),
    port,
    applicationName,
    env: {
      DATABASE_URL: withApplicationName(databaseUrl, applicationName),
      SCHEMA: schema,
      POOL_SIZE: String(poolSize),
      PORT: String(port),
      AUTH_SECRET: crypto.randomBytes(32).toString('hex'),
      NODE_ENV: 'production',
    },
  });
}

/** The same accounts and hashes as the core's, in better-auth's tables (a credential account per user). */
export async function insertBetterAuthUsers(pool: pg.Pool, schema: string, credentials: Credential[]): Promise<void> {
  const ids = credentials.map(() => crypto.randomUUID());
  const now = new Date();
  await pool.query(
    `INSERT INTO "${schema}"."user" (id, name, email, "emailVerified", "createdAt", "updatedAt")
     SELECT id, email, email, false, $1, $1 FROM unnest($2::text[], $3::text[]) AS t(id, email)`,
    [now, ids, credentials.map((c) => c.email)],
  );
  await pool.query(
    `INSERT INTO "${schema}".account (id, "accountId", "providerId", "userId", password, "createdAt", "updatedAt")
     SELECT gen_random_uuid()::text, id, 'credential', id, hash, $1, $1 FROM unnest($2::text[], $3::text[]) AS t(id, hash)`,
    [now, ids, credentials.map((c) => c.hash)],
  );
  await pool.query(`ANALYZE "${schema}"."user", "${schema}".account, "${schema}".session`);
}
