import type pg from 'pg';
import type { Row } from './report.js';
import type { SchemaRegistry } from './schemas.js';
import type { BenchSettings } from './settings.js';
import { startBare, startCore } from './servers.js';
import { getStatus, type ServerProcess } from './server-process.js';

export interface Scenario {
  /** What `npm run bench:one -- <name>` selects; a prefix selects a group (`signin`). */
  name: string;
  summary: string;
  run(context: BenchContext): Promise<Row[]>;
}

/** Everything a scenario starts is stopped or closed when it ends, whatever happens. */
export class BenchContext {
  private readonly cleanups: Array<() => Promise<void>> = [];

  constructor(
    readonly settings: BenchSettings,
    readonly schemas: SchemaRegistry,
    readonly log: (message: string) => void,
  ) {}

  /** A core on a fresh schema (migrated by the core itself at startup) and a pool on that schema. */
  async core(
    label: string,
    env?: Record<string, string>,
    schema = this.schemas.reserve(`core_${label}`),
  ): Promise<{ server: ServerProcess; pool: pg.Pool; schema: string }> {
    const server = await startCore(this.settings, { schema, env, label });
    this.cleanups.push(() => server.stop());
    const pool = this.pool(schema);
    return { server, pool, schema };
  }

  /** The bare Fastify + pg ceiling process on a fresh, migrated schema. */
  async bare(label: string): Promise<{ server: ServerProcess; pool: pg.Pool; schema: string }> {
    const { schema, pool } = await this.schemas.migrated(`bare_${label}`);
    this.cleanups.push(() => pool.end());
    const server = await startBare(this.settings, schema);
    this.cleanups.push(() => server.stop());
    return { server, pool, schema };
  }

  /** Runs `cleanup` when the scenario ends (before what was registered earlier). */
  onClose(cleanup: () => Promise<void>): void {
    this.cleanups.push(cleanup);
  }

  pool(schema: string): pg.Pool {
    const pool = this.schemas.pool(schema);
    this.cleanups.push(() => pool.end());
    return pool;
  }

  async close(): Promise<void> {
    for (const cleanup of this.cleanups.splice(0).reverse()) {
      await cleanup().catch((error: unknown) => this.log(`cleanup failed: ${(error as Error).message}`));
    }
  }
}

/** A route that is not written yet falls through to the contract's catch-all: 404 `Not found`. */
export async function routeExists(baseUrl: string, method: string, path: string): Promise<boolean> {
  if (method === 'GET') return (await getStatus(`${baseUrl}${path}`)) !== 404;
  const response = await fetch(`${baseUrl}${path}`, { method, body: '{}', headers: { 'content-type': 'application/json' } });
  await response.text();
  return response.status !== 404;
}

export async function postJson(baseUrl: string, path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  const text = await response.text();
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = { text };
  }
  return { status: response.status, json };
}
