import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configKeys } from '../src/config/keys.js';
import { errorCodes } from '../src/errors.js';

const readme = fs.readFileSync('README.md', 'utf8');

describe('README', () => {
  it('documents every config key with its env names', () => {
    for (const key of configKeys) {
      const row = readme.split('\n').find((line) => line.startsWith(`| \`${key.name}\``));
      expect(row, key.name).toBeDefined();
      for (const env of key.env) expect(row, key.name).toContain(`\`${env}\``);
    }
  });

  it('lists exactly the codes of the error catalog', () => {
    const documented = [...readme.matchAll(/^\| `([A-Z_]+)` \| \d{3} \|/gm)].map((match) => match[1]);
    expect(documented.sort()).toEqual([...errorCodes].sort());
  });

  it('gives the two quick-start commands', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm test');
  });
});
