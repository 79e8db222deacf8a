import os from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

// Tests that measure the core under load or time it against itself (attacks, outages, sign-in timing, the server
// process) run one file at a time once the rest has finished, so that no other file shares the machine with them.
// The hostile files that only assert outcomes (contact fuzzing, body and depth limits, shared ids, unstorable text,
// the verification queue, whose hashes take far longer than its deadline) run with the rest instead: they pass on a
// machine much busier than the shared files make it, and alone they left the other core idle. A new file that times
// the core or fills its pools belongs in this list.
const alone = [
  'test/hostile/database-wait.test.ts',
  'test/hostile/fuzz.test.ts',
  'test/hostile/hostile-hashes.test.ts',
  'test/hostile/outage.test.ts',
  'test/hostile/races.test.ts',
  'test/hostile/secret-logs.test.ts',
  'test/hostile/signin-timing.test.ts',
  'test/hostile/two-instances.test.ts',
  'test/hostile/verification-storm.test.ts',
  'test/server.test.ts',
  'test/start.test.ts',
];
// Files share their worker process and its loaded modules with the files before them, which saves loading the core's
// dependencies once per file; so a file must leave globals (timers, spies, the environment) as it found them. The
// official SDK keeps its configuration in module state (one app per process), so the files that drive it run
// isolated, each in a worker thread of its own.
const isolated = ['test/e2e/sdk*.test.ts'];
// These run on their own: the browser test (Chromium), load tests and the core behind PgBouncer (npm run
// test:browser, test:attack, test:topology).
const elsewhere = [...configDefaults.exclude, 'test/browser/**', 'test/attack/**', 'test/topology/**'];

// Most of a test's time is spent waiting for PostgreSQL or a child process, so files run two per core.
const workers = Math.max(2, os.availableParallelism() * 2);

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    maxWorkers: workers,
    // As many from the start: letting idle workers go ends the run with an unhandled rejection when files share workers.
    minWorkers: workers,
    poolOptions: { forks: { isolate: false }, threads: { isolate: true } },
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...elsewhere, ...alone, ...isolated],
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: 'isolated', include: isolated, exclude: elsewhere, pool: 'threads', sequence: { groupOrder: 0 } } },
      {
        extends: true,
        test: {
          name: 'alone',
          include: alone,
          exclude: elsewhere,
          sequence: { groupOrder: 1 },
          poolOptions: { forks: { singleFork: true, isolate: true } },
        },
      },
    ],
  },
});
