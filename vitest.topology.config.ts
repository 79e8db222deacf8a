import { defineConfig } from 'vitest/config';

// `npm run test:topology` (scripts/topology.sh): the features that matter behind PgBouncer in transaction mode, and
// the topology tests (multi-host failover, a standby, the pooler's refusals). Kept out of `npm test`.
export default defineConfig({
  test: {
    globalSetup: ['test/topology/global-setup.ts'],
    include: [
      'test/topology/**/*.test.ts',
      'test/recipes/emailpassword/signin.test.ts',
      'test/recipes/session/refresh.test.ts',
      'test/bulk-import/worker.test.ts',
      'test/lazy-migration/signin.test.ts',
      'test/keys/signing-keys.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
