import { describe, expect, it } from 'vitest';
import { circles, importGraph, moduleArrows, readSourceFiles } from './source-graph.js';
import { knownUpwardArrows, layerOf } from './layers.js';

describe('layers of src/', () => {
  const graph = importGraph(readSourceFiles());
  const arrows = moduleArrows(graph);

  it('has no circle of imports between files', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('puts every module in a layer', () => {
    const modules = new Set([...arrows.keys()].flatMap((arrow) => arrow.split(' -> ')));
    for (const module of modules) expect(() => layerOf(module), module).not.toThrow();
  });

  it('has no upward arrow but the listed ones', () => {
    const upward = [...arrows.keys()].filter((arrow) => {
      const [from, to] = arrow.split(' -> ');
      return layerOf(to) < layerOf(from);
    });
    expect(upward.sort()).toEqual([...knownUpwardArrows].sort());
  });

  it('counts an upward arrow and a circle when there is one', () => {
    const made = importGraph([
      { path: 'src/users/a.ts', text: "import { b } from '../recipes/passkeys/b.js';" },
      { path: 'src/recipes/passkeys/b.ts', text: "import type { a } from '../../users/a.js';" },
    ]);
    expect(circles(made)).toEqual([['src/recipes/passkeys/b.ts', 'src/users/a.ts']]);
    const upward = [...moduleArrows(made).keys()].filter((arrow) => layerOf(arrow.split(' -> ')[1]) < layerOf(arrow.split(' -> ')[0]));
    expect(upward).toEqual(['users -> recipes/passkeys']);
  });
});
