import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    // The browser test needs Chromium and load tests run on their own: npm run test:browser, npm run test:attack.
    exclude: [...configDefaults.exclude, 'test/browser/**', 'test/attack/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
