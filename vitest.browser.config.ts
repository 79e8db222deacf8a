import { defineConfig } from 'vitest/config';

// `npm run test:browser`: the end-to-end test in headless Chromium (scripts/install-test-tools.sh installs it).
export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    include: ['test/browser/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
