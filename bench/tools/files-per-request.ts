// Counts the source files whose code runs while the core answers one request: a measure of how many files a reader
// has to open to follow it. Uses V8's precise coverage; each request is sent once to warm up, then measured.
// Usage: DATABASE_URL=postgresql://… vite-node bench/tools/files-per-request.ts
import crypto from 'node:crypto';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import bcrypt from 'bcrypt';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { createPool } from '../../src/db/pool.js';
import { migrate } from '../../src/db/migrate.js';

interface Coverage {
  result: { url: string; functions: { ranges: { count: number }[] }[] }[];
}

const sourceRoot = path.resolve('src') + path.sep;

function filesThatRan(coverage: Coverage): string[] {
  return coverage.result
    .filter((script) => script.url.includes(sourceRoot) && script.functions.some((fn) => fn.ranges[0]?.count > 0))
    .map((script) => path.relative(sourceRoot, script.url.replace(/^file:\/\//, '').replace(/\?.*$/, '')))
    .sort();
}

async function main(): Promise<void> {
  const connectionString = process.env.DATABASE_URL;
  if (!connectionString) throw new Error('set DATABASE_URL');
  const schema = `files_${crypto.randomBytes(4).toString('hex')}`;
  const pool = createPool({ connectionString, schema, size: 4 });
  await migrate(pool, schema);
  const config = loadConfig({ argv: ['--config=test/fixtures/empty.yaml'], overrides: { log_level: 'NONE', bcrypt_log_rounds: 4 } });
  const app: FastifyInstance = await buildApp({ config, pool });
  await app.ready();
  // Background jobs (bulk worker, code cleanup) would be counted too; only the request's own path is wanted.
  await app.services.stop();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  const hash = bcrypt.hashSync('password', 4);

  const requests: Record<string, (n: number) => Promise<unknown>> = {
    'POST /recipe/user/passwordhash/import': (n) =>
      app.inject({ method: 'POST', url: '/recipe/user/passwordhash/import', payload: { email: `i${n}@example.com`, passwordHash: hash } }),
    'POST /recipe/signinup/code/consume': async (n) => {
      const created = await app.inject({ method: 'POST', url: '/recipe/signinup/code', payload: { email: `p${n}@example.com` } });
      const { preAuthSessionId, deviceId, userInputCode } = created.json();
      await session.post('Profiler.takePreciseCoverage');
      return app.inject({ method: 'POST', url: '/recipe/signinup/code/consume', payload: { preAuthSessionId, deviceId, userInputCode } });
    },
    'POST /bulk-import/users': (n) =>
      app.inject({
        method: 'POST',
        url: '/bulk-import/users',
        payload: {
          users: [
            { loginMethods: [{ recipeId: 'emailpassword', email: `b${n}@example.com`, passwordHash: hash, hashingAlgorithm: 'bcrypt' }] },
          ],
        },
      }),
  };
  for (const [name, send] of Object.entries(requests)) {
    await send(1);
    await session.post('Profiler.takePreciseCoverage');
    const response = (await send(2)) as { statusCode: number };
    const files = filesThatRan((await session.post('Profiler.takePreciseCoverage')) as Coverage);
    const folders = new Set(files.map((file) => path.dirname(file)));
    console.log(`${name}: ${response.statusCode}, ${files.length} files in ${folders.size} folders\n  ${files.join('\n  ')}`);
  }
  session.disconnect();
  await app.close();
  await pool.query(`DROP SCHEMA ${schema} CASCADE`);
  await pool.end();
}

await main();
