import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../src/db/embedded.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    databaseKind: string;
    /** `transaction` when the run goes through a transaction pooler (npm run test:topology). */
    databasePoolMode: 'session' | 'transaction';
    /** The PostgreSQL server itself, without the pooler (npm run test:topology only). */
    serverUrl: string;
  }
}

interface SharedServer {
  users: number;
  started: Promise<{ embedded: EmbeddedDatabase; tempDir: string }>;
}
// Every project of the run (shared, isolated, alone) calls setup; they share one embedded server, started by the
// first and stopped by the last teardown, kept on globalThis because each project loads this module anew.
const shared = globalThis as { identityCoreTestServer?: SharedServer };

async function startServer(): Promise<{ embedded: EmbeddedDatabase; tempDir: string }> {
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'identity-core-test-'));
  fs.chmodSync(tempDir, 0o755);
  return { embedded: await startEmbeddedDatabase(path.join(tempDir, 'data'), () => {}), tempDir };
}

// One database server for the whole run: the machine's PostgreSQL when DATABASE_URL is set, otherwise an
// embedded PostgreSQL in a temporary folder. Each test file then works in a schema of its own.
export async function setup(project: TestProject): Promise<void> {
  project.provide('databasePoolMode', 'session');
  const external = process.env.DATABASE_URL;
  if (external) {
    project.provide('databaseUrl', external);
    project.provide('databaseKind', 'external');
    return;
  }
  const server = (shared.identityCoreTestServer ??= { users: 0, started: startServer() });
  server.users += 1;
  project.provide('databaseUrl', (await server.started).embedded.connectionString);
  project.provide('databaseKind', 'embedded');
}

export async function teardown(): Promise<void> {
  const server = shared.identityCoreTestServer;
  if (!server || --server.users > 0) return;
  shared.identityCoreTestServer = undefined;
  const { embedded, tempDir } = await server.started;
  await embedded.stop();
  fs.rmSync(tempDir, { recursive: true, force: true });
}
