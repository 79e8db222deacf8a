import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configKeys } from '../src/config/keys.js';
import { errorCodes } from '../src/errors.js';

const readme = fs.readFileSync('README.md', 'utf8');
const configuration = fs.readFileSync('docs/configuration.md', 'utf8');
const errors = fs.readFileSync('docs/errors.md', 'utf8');

describe('README and docs/', () => {
  it('docs/configuration.md documents every config key with its env names', () => {
    for (const key of configKeys) {
      const row = configuration.split('\n').find((line) => line.startsWith(`| \`${key.name}\``));
      expect(row, key.name).toBeDefined();
      for (const env of key.env) expect(row, key.name).toContain(`\`${env}\``);
    }
  });

  it('docs/errors.md lists exactly the codes of the error catalog', () => {
    const documented = [...errors.matchAll(/^\| `([A-Z_]+)` \| \d{3} \|/gm)].map((match) => match[1]);
    expect(documented.sort()).toEqual([...errorCodes].sort());
  });

  it('links every file of docs/ from the README', () => {
    for (const file of fs.readdirSync('docs')) expect(readme, file).toContain(`(docs/${file})`);
  });

  it('gives the two quick-start commands', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm test');
  });
});
