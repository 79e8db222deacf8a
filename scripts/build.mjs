// `npm run build`: compiles src/ into dist/ (tsc), then makes the command one file. Loaded as about a hundred modules,
// the command spends some 0.1 s resolving, reading and compiling them before it reads a single user; as one file (its
// packages still loaded from node_modules), about half of that.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Builds dist/ under root; exits the process with the compiler's status when it fails. */
export function build(root) {
  const compiler = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [compiler, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
  const { buildSync } = createRequire(import.meta.url)('esbuild');
  const command = path.join(root, 'dist', 'cli', 'main.js');
  buildSync({
    entryPoints: [command],
    outfile: command,
    allowOverwrite: true,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) build(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'));
