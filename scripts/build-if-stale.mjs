// Compiles src/ into dist/ only when dist/ is missing or older than a source file, so that `npm start` and
// `npm test` cost a compile only after the sources changed.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from './build.mjs';

const inputs = ['src', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs'];

function newestChange(file) {
  const stat = fs.statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...fs.readdirSync(file).map((entry) => newestChange(path.join(file, entry))));
}

/** Why dist/ must be rebuilt, or undefined when it is current. A tree without src/ (the image) is never stale. */
export function staleReason(root) {
  const sources = inputs.map((input) => path.join(root, input)).filter((input) => fs.existsSync(input));
  if (!sources.some((input) => input.endsWith('src'))) return undefined;
  const output = path.join(root, 'dist', 'server.js');
  if (!fs.existsSync(output)) return 'dist/ has not been built';
  const builtAt = fs.statSync(output).mtimeMs;
  return Math.max(...sources.map(newestChange)) > builtAt ? 'the sources changed since dist/ was built' : undefined;
}

export function buildIfStale(root) {
  const reason = staleReason(root);
  if (reason === undefined) return;
  process.stderr.write(`identity-core: ${reason}; compiling (npm run build)\n`);
  build(root);
  // The next check compares with the time of this build.
  const now = new Date();
  fs.utimesSync(path.join(root, 'dist', 'server.js'), now, now);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) buildIfStale(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'));
