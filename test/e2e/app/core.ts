import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { createLogger } from '../../../src/logger.js';
import { createTestDatabase, testConfig, type TestDatabase } from '../../helper.js';

export const coreApiKey = 'sdk-app-core-api-key-0123456789';

export interface ListeningCore {
  app: FastifyInstance;
  db: TestDatabase;
  url: string;
  logs: string[];
  close(): Promise<void>;
}

/**
 * The core as an app meets it: listening on a random loopback port with its own database and the wall clock (the
 * SDK checks token expiry against the real time, so the core must mint with it too; a test that mints no tokens may
 * move a clock of its own).
 */
export async function startListeningCore(
  overrides: Record<string, unknown> = {},
  { clock }: { clock?: () => number } = {},
): Promise<ListeningCore> {
  const db = await createTestDatabase();
  const config = testConfig({ api_keys: coreApiKey, ...overrides });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const app = await buildApp({ config, pool: db.pool, clock, logger: createLogger(config, sink) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    app,
    db,
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    logs,
    async close() {
      await app.close();
      await db.drop();
    },
  };
}
