import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    // The browser test needs Chromium and runs on its own: npm run test:browser.
    exclude: [...configDefaults.exclude, 'test/browser/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
