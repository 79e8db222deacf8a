import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withApplicationName } from './cpu-accounting.js';
import { freePort, startServer, type ServerProcess } from './server-process.js';
import type { BenchSettings } from './settings.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const coreScript = path.join(repoRoot, 'dist/server.js');
const bareScript = path.join(repoRoot, 'bench/ceilings/bare-server.mjs');

/** The signer key of the contract's §6.6 vector; any valid key would do. */
export const benchSignerKey = 'gRhC3eDeQOdyEn4bMd9c6kxguWVmcIVq/SKa0JDPFeM6TcEevkaW56sIWfx88OHbJKnCXdWscZx0l2WbCJ1wbg==';
export const poolSize = 10;

let emptyConfigPath: string | undefined;

// The core reads ./config.yaml by default; an empty file keeps a developer's settings out of the numbers.
function emptyConfig(): string {
  if (!emptyConfigPath) {
    emptyConfigPath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'identity-core-bench-')), 'empty.yaml');
    fs.writeFileSync(emptyConfigPath, '');
  }
  return emptyConfigPath;
}

export interface CoreOptions {
  schema: string;
  /** Extra environment, e.g. BCRYPT_LOG_ROUNDS or pool sizes to try a fix without editing src/. */
  env?: Record<string, string>;
  label?: string;
}

/** `node dist/server.js` configured only by environment, on its own schema of the benchmark database. */
export async function startCore(settings: BenchSettings, options: CoreOptions): Promise<ServerProcess> {
  const port = await freePort();
  const nodeArgs = settings.cpuProfileDir
    ? ['--cpu-prof', `--cpu-prof-dir=${settings.cpuProfileDir}`, `--cpu-prof-name=core-${options.label ?? 'run'}-${Date.now()}.cpuprofile`]
    : [];
  const applicationName = `bench-core-${port}`;
  return startServer({
    name: `core (${options.label ?? options.schema})`,
    script: settings.coreScript ?? coreScript,
    args: [`--config=${emptyConfig()}`],
    nodeArgs,
    port,
    applicationName,
    env: {
      DATABASE_URL: withApplicationName(settings.databaseUrl, applicationName),
      POSTGRESQL_TABLE_SCHEMA: options.schema,
      POSTGRESQL_CONNECTION_POOL_SIZE: String(poolSize),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: settings.logLevel,
      IDP_PASSWORD_HASHING_SIGNER_KEY: benchSignerKey,
      BCRYPT_LOG_ROUNDS: '10',
      ...settings.coreEnv,
      ...options.env,
    },
  });
}

/** The ceiling process (bench/ceilings/bare-server.mjs) on an already migrated schema, same pool size. */
export async function startBare(settings: BenchSettings, schema: string): Promise<ServerProcess> {
  const port = await freePort();
  const applicationName = `bench-bare-${port}`;
  return startServer({
    name: 'bare Fastify + pg',
    script: bareScript,
    port,
    applicationName,
    env: {
      DATABASE_URL: withApplicationName(settings.databaseUrl, applicationName),
      POSTGRESQL_TABLE_SCHEMA: schema,
      POOL_SIZE: String(poolSize),
      PORT: String(port),
    },
  });
}
