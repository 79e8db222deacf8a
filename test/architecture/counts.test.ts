import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { circles, importGraph, migrationTables, readSourceFiles, repoRoot } from './source-graph.js';
import { knownUpwardArrows } from './layers.js';

// The counts ARCHITECTURE.md states under "Owners and layers" are the tree's.
describe('the counts of ARCHITECTURE.md', () => {
  const text = fs.readFileSync(path.join(repoRoot, 'ARCHITECTURE.md'), 'utf8');
  const stated = (pattern: RegExp) => Number(pattern.exec(text)?.[1]);
  const files = readSourceFiles();

  it('states the number of files in src/', () => {
    expect(stated(/(\d+) files in `src\/`/)).toBe(files.length);
  });

  it('states the number of tables, each written by one module', () => {
    expect(stated(/(\d+) tables, each written by one module/)).toBe(migrationTables().size);
  });

  it('states the circles and the upward arrows', () => {
    expect(stated(/(\d+) circles of files/)).toBe(circles(importGraph(files)).length);
    expect(stated(/(\d+) upward arrows between modules/)).toBe(knownUpwardArrows.length);
  });
});
