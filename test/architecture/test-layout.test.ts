import { describe, expect, it } from 'vitest';
import { repoRoot } from './source-graph.js';
import { misplacedTests, sourceFolders, testFiles } from './test-layout.js';

describe('test/ mirrors src/', () => {
  const source = sourceFolders(repoRoot);

  it('has every test file in the folder of what it tests, or in a cross-cutting suite', () => {
    expect(misplacedTests(testFiles(repoRoot), source)).toEqual([]);
  });

  it('names a file in a folder src/ does not have, and a recipe folder outside test/recipes/', () => {
    const made = [
      'test/helper.ts',
      'test/users/list.test.ts',
      'test/recipes/totp/routes.test.ts',
      'test/e2e/sdk.test.ts',
      'test/routes/emailpassword/signin.test.ts',
      'test/passwordless/code-scheme.test.ts',
      'test/recipes/shop/cart.test.ts',
      'test/recipes/stray.test.ts',
    ];
    expect(misplacedTests(made, source).map((line) => line.split(':')[0])).toEqual([
      'test/routes/emailpassword/signin.test.ts',
      'test/passwordless/code-scheme.test.ts',
      'test/recipes/shop/cart.test.ts',
      'test/recipes/stray.test.ts',
    ]);
  });
});
