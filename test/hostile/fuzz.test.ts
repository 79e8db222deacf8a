import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createTestApp, truncateAll, type TestApp } from '../helper.js';
import { buildRequest } from './support/build-request.js';
import { isContractError } from './support/contract-messages.js';
import { fingerprint } from './support/fingerprint.js';
import { fuzzCase, type FuzzCase } from './support/mutations.js';
import { fuzzApiKey, fuzzSignerKey, routeCases, seed, type Seed } from './support/routes.js';

// Random and mutated requests over every route. Every answer must be a contract error (4xx, with a contract
// message, and nothing written) or a 200 whose body is JSON with a status; never a 500 or a hang.
// FUZZ_RUNS scales the total (npm run test:hostile); lanes run side by side, each on its own schema.
const totalRuns = Number(process.env.FUZZ_RUNS ?? 10_000);
const lanes = Number(process.env.FUZZ_LANES ?? 4);
const reseedEvery = 250;

// 200 bodies without a status key (contract §1.8).
const statusless: Record<string, (body: unknown) => boolean> = {
  '/apiversion': (body) => Array.isArray((body as { versions?: unknown }).versions),
  '/bulk-import/users/remove': (body) => Array.isArray((body as { deletedIds?: unknown }).deletedIds),
};

interface Tally {
  requests: number;
  byStatus: Record<number, number>;
}

// The suite replays one fixed seed, so a red run always means a change broke something; `FUZZ_SEED=random`
// (the long variant) explores new inputs, and any seed it prints replays a failure.
const baseSeed = process.env.FUZZ_SEED === 'random' ? Date.now() : Number(process.env.FUZZ_SEED ?? 20261122);

// Counterexamples can hold megabytes of generated text: report the request as the property described it.
const reporter =
  (lane: number) =>
  (details: fc.RunDetails<[FuzzCase]>): void => {
    if (!details.failed) return;
    const error = details.errorInstance;
    // Assertion failures describe the request; anything else is a failure of the harness: show where.
    const cause = error instanceof Error ? (error.name === 'AssertionError' ? error.message : String(error.stack)) : String(error);
    throw new Error(`fuzz failed (FUZZ_SEED=${baseSeed}, lane ${lane}, run ${details.numRuns}): ${cause.slice(0, 3000)}`);
  };

async function runLane(lane: number, runs: number, tally: Tally, apps: TestApp[]): Promise<void> {
  // The queue is drained explicitly after each accepted enqueue, so background work never moves the fingerprint.
  const t = await createTestApp({
    api_keys: fuzzApiKey,
    idp_password_hashing_signer_key: fuzzSignerKey,
    log_level: 'ERROR',
    bulk_import_worker: false,
  });
  apps.push(t);
  let current: Seed | undefined;
  let before = await fingerprint(t.db.pool);
  let sinceSeed = reseedEvery;

  await fc.assert(
    fc.asyncProperty(fuzzCase(routeCases.length), async (fuzz) => {
      if (sinceSeed++ >= reseedEvery || current === undefined) {
        await truncateAll(t.db);
        current = await seed(t.app, lane * 1_000_000 + tally.requests);
        before = await fingerprint(t.db.pool);
        sinceSeed = 1;
      }
      const route = routeCases[fuzz.route];
      const { description, ...request } = buildRequest(route, current, fuzz);
      const logsBefore = t.logs.length;
      const response = await t.app.inject(request);
      tally.requests++;
      tally.byStatus[response.statusCode] = (tally.byStatus[response.statusCode] ?? 0) + 1;
      const context = `${description}\n→ ${response.statusCode} ${response.body.slice(0, 500)}`;

      if (response.statusCode === 200 && route.path === '/bulk-import/users' && request.method === 'POST') {
        await t.app.services.bulkImportWorker.processUntilEmpty();
      }
      const after = await fingerprint(t.db.pool);
      if (response.statusCode >= 400 && response.statusCode < 500) {
        expect(isContractError(response.statusCode, response.body), `not a contract error: ${context}`).toBe(true);
        expect(after, `a rejected request wrote: ${context}`).toEqual(before);
      } else if (response.statusCode === 200) {
        const routePath = route.path;
        if (routePath === '/hello') {
          expect(response.body, context).toBe('Hello\n');
        } else {
          expect(response.headers['content-type'], context).toBe('application/json; charset=UTF-8');
          const body: unknown = JSON.parse(response.body);
          const ok = statusless[routePath]?.(body) ?? typeof (body as { status?: unknown }).status === 'string';
          expect(ok, `200 without a status: ${context}`).toBe(true);
        }
      } else {
        expect.fail(`unexpected ${response.statusCode}: ${context}\n${t.logs.slice(logsBefore).join('').slice(0, 1500)}`);
      }
      before = after;
    }),
    { numRuns: runs, seed: baseSeed + lane, endOnFailure: true, reporter: reporter(lane) },
  );
}

describe('fuzzing every route', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((t) => t.close()));
  });

  it(
    `answers ${totalRuns} hostile requests with contract errors or statuses, and rejected ones write nothing`,
    async () => {
      const tally: Tally = { requests: 0, byStatus: {} };
      const perLane = Math.ceil(totalRuns / lanes);
      const started = Date.now();
      await Promise.all(Array.from({ length: lanes }, (_, lane) => runLane(lane, perLane, tally, apps)));
      for (const t of apps) {
        expect((await t.app.inject({ method: 'GET', url: '/hello' })).body).toBe('Hello\n');
      }
      expect(tally.requests).toBeGreaterThanOrEqual(totalRuns);
      // Both sides of the oracle must be exercised in volume.
      expect(tally.byStatus[200]).toBeGreaterThan(totalRuns / 10);
      expect(tally.byStatus[400]).toBeGreaterThan(totalRuns / 10);
      console.info(`fuzz: ${tally.requests} requests in ${Date.now() - started} ms`, JSON.stringify(tally.byStatus));
    },
    Math.max(120_000, totalRuns * 30),
  );
});
