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

let embedded: EmbeddedDatabase | undefined;
let tempDir: string | undefined;

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
  tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'identity-core-test-'));
  fs.chmodSync(tempDir, 0o755);
  embedded = await startEmbeddedDatabase(path.join(tempDir, 'data'), () => {});
  project.provide('databaseUrl', embedded.connectionString);
  project.provide('databaseKind', 'embedded');
}

export async function teardown(): Promise<void> {
  await embedded?.stop();
  if (tempDir) fs.rmSync(tempDir, { recursive: true, force: true });
}
