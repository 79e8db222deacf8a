// Reads src/ as text: which module writes which table (INSERT INTO, UPDATE, DELETE FROM), and the graph of
// relative imports between files and between modules. A module is `recipes/<recipe>` for a recipe's files, else the
// top folder of src/ (or the file, for a file at the top of src/). src/cli/ is left out of the writers: the command
// talks to the core over HTTP and writes no table.
import fs from 'node:fs';
import path from 'node:path';

export const repoRoot = path.resolve(import.meta.dirname, '../..');

export interface SourceFile {
  /** Relative to the repository root, with forward slashes: `src/users/repository.ts`. */
  path: string;
  text: string;
}

export function readSourceFiles(root = repoRoot): SourceFile[] {
  const files: SourceFile[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(relative);
      else if (entry.name.endsWith('.ts')) files.push({ path: relative, text: fs.readFileSync(path.join(root, relative), 'utf8') });
    }
  };
  walk('src');
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

export function moduleOf(file: string): string {
  const parts = file.split('/');
  if (parts.length > 3 && parts[1] === 'recipes') return `recipes/${parts[2]}`;
  return parts[1];
}

/** Every table a CREATE TABLE of migrations/ names. */
export function migrationTables(root = repoRoot): Set<string> {
  const dir = path.join(root, 'migrations');
  const sql = fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.sql'))
    .sort()
    .map((name) => fs.readFileSync(path.join(dir, name), 'utf8'))
    .join('\n');
  const tables = new Set<string>();
  for (const match of sql.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?(?:[a-z_0-9]+\.)?"?([a-z_0-9]+)"?/gi))
    tables.add(match[1].toLowerCase());
  return tables;
}

const writeStatement = /\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+("?[a-z_][a-z0-9_]*"?)/gi;

/** The tables of `tables` that the text writes (INSERT INTO, UPDATE, DELETE FROM), in order of first write. */
export function tablesWritten(text: string, tables: Set<string>): string[] {
  const written = new Set<string>();
  for (const match of text.matchAll(writeStatement)) {
    const table = match[2].replaceAll('"', '').toLowerCase();
    if (tables.has(table)) written.add(table);
  }
  return [...written];
}

export interface Write {
  table: string;
  file: string;
  module: string;
}

export function tableWrites(files: SourceFile[], tables: Set<string>): Write[] {
  return files
    .filter((file) => !file.path.startsWith('src/cli/'))
    .flatMap((file) => tablesWritten(file.text, tables).map((table) => ({ table, file: file.path, module: moduleOf(file.path) })));
}

/** Writes by a module other than the table's owner, and writes to a table no owner is named for. */
export function ownershipViolations(writes: Write[], owners: Readonly<Record<string, string>>): string[] {
  return writes
    .filter((write) => owners[write.table] !== write.module)
    .map((write) =>
      owners[write.table] === undefined
        ? `${write.file} writes ${write.table}, which has no owner: name one in test/architecture/table-owners.ts`
        : `${write.file} writes ${write.table}, owned by ${owners[write.table]}: call the owner's repository instead`,
    );
}

const importFrom = /(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]/gs;

/** file -> the files of src/ it imports (type imports included). */
export function importGraph(files: SourceFile[]): Map<string, Set<string>> {
  const known = new Set(files.map((file) => file.path));
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const targets = new Set<string>();
    for (const match of file.text.matchAll(importFrom)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file.path), match[1]));
      const candidate = [target, target.replace(/\.js$/, '.ts'), `${target}.ts`, `${target}/index.ts`].find((name) => known.has(name));
      if (candidate !== undefined) targets.add(candidate);
    }
    graph.set(file.path, targets);
  }
  return graph;
}

/** Strongly connected groups of more than one file (Tarjan). */
export function circles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** Distinct module -> module arrows, each with the file imports that make it. */
export function moduleArrows(graph: Map<string, Set<string>>): Map<string, string[]> {
  const arrows = new Map<string, string[]>();
  for (const [file, targets] of graph) {
    for (const target of targets) {
      const from = moduleOf(file);
      const to = moduleOf(target);
      if (from === to) continue;
      const key = `${from} -> ${to}`;
      arrows.set(key, [...(arrows.get(key) ?? []), `${file} -> ${target}`]);
    }
  }
  return arrows;
}
