import { defineConfig } from 'vitest/config';

// `npm run test:attack`: bounded load tests that keep the machine busy for a while, kept out of `npm test`.
export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    include: ['test/attack/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
