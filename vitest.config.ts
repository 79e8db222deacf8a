import os from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

// Tests that measure the core under load or time it against itself (attacks, outages, sign-in timing, the server
// process) run one file at a time once the rest has finished, so that no other file shares the machine with them.
const alone = ['test/hostile/**/*.test.ts', 'test/server.test.ts', 'test/start.test.ts'];
// These run on their own: the browser test (Chromium), load tests and the core behind PgBouncer (npm run
// test:browser, test:attack, test:topology).
// Files that initialise the official SDK, whose state is per process.
const sdk = ['test/e2e/**/*.test.ts'];
const elsewhere = [...configDefaults.exclude, 'test/browser/**', 'test/attack/**', 'test/topology/**'];

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Most of a test's time is spent waiting for PostgreSQL or a child process, so files run two per core.
    maxWorkers: Math.max(2, os.availableParallelism() * 2),
    // Workers kept for the whole run: one left idle and stopped meanwhile would race the recycling between groups.
    minWorkers: Math.max(2, os.availableParallelism() * 2),
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...elsewhere, ...alone, ...sdk],
          sequence: { groupOrder: 0 },
          // A worker process loads the app's modules once and runs file after file, instead of starting afresh for
          // each file: loading them (Fastify, the recipes, the hashing bindings) cost more than most files' tests.
          // Files stay apart all the same: each builds its own app on a schema of its own.
          isolate: false,
        },
      },
      {
        extends: true,
        // supertokens-node keeps one initialised SDK per process, so each of these files gets a process of its own.
        test: { name: 'sdk', include: sdk, exclude: elsewhere, sequence: { groupOrder: 0 }, isolate: true },
      },
      {
        extends: true,
        test: {
          name: 'alone',
          include: alone,
          exclude: elsewhere,
          sequence: { groupOrder: 1 },
          // One file at a time, each with its modules loaded afresh, as a core starting alone would.
          isolate: true,
          poolOptions: { forks: { singleFork: true } },
        },
      },
    ],
  },
});
