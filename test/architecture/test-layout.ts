// Where a test file belongs: test/ mirrors src/. The tests of `src/recipes/<recipe>/` are in `test/recipes/<recipe>/`,
// those of another top folder of src/ in `test/<folder>/`, and the suites that cut across every module in folders of
// their own. A file at the top of test/ is a shared helper or tests a file at the top of src/ or the whole.
import fs from 'node:fs';
import path from 'node:path';

/** Suites that drive the whole core (a real SDK, a browser, Docker, load, topologies) or check the tree itself. */
export const crossCuttingSuites: readonly string[] = [
  'e2e',
  'hostile',
  'attack',
  'topology',
  'docker',
  'browser',
  'architecture',
  'fixtures',
];

export interface SourceFolders {
  /** The top folders of src/. */
  folders: ReadonlySet<string>;
  /** The folders of src/recipes/. */
  recipes: ReadonlySet<string>;
}

export function sourceFolders(root: string): SourceFolders {
  const dirs = (dir: string) =>
    new Set(
      fs
        .readdirSync(path.join(root, dir), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name),
    );
  return { folders: dirs('src'), recipes: dirs('src/recipes') };
}

/** Every file under test/, relative to the repository root, with forward slashes. */
export function testFiles(root: string): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(relative);
      } else files.push(relative);
    }
  };
  walk('test');
  return files.sort();
}

/** The files of `files` outside the convention, each with where it should go. */
export function misplacedTests(files: readonly string[], source: SourceFolders): string[] {
  return files.flatMap((file) => {
    const parts = file.split('/');
    if (parts.length <= 2) return [];
    const folder = parts[1];
    if (crossCuttingSuites.includes(folder)) return [];
    if (folder === 'recipes') {
      return parts.length > 3 && source.recipes.has(parts[2]) ? [] : [`${file}: test/recipes/ holds one folder per recipe of src/recipes/`];
    }
    if (source.folders.has(folder)) return [];
    return [
      `${file}: put the tests of src/recipes/<recipe>/ in test/recipes/<recipe>/, of src/<folder>/ in test/<folder>/ (test/ mirrors src/)`,
    ];
  });
}
