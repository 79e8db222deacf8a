// `npm start`: the built server in this same process (npm runs it with exec, so SIGTERM and SIGINT sent to npm
// reach the server), compiled first only if the sources changed since the last build.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfStale } from './build-if-stale.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
buildIfStale(root);
await import(path.join(root, 'dist', 'server.js'));
