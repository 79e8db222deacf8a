import { spawn } from 'node:child_process';
import path from 'node:path';

// The ceiling: the very rows the migration wrote, COPYed by psql into the same tables (same indexes and
// constraints) of another new database, in one transaction. Dumping them is not timed; loading them is.
const tables = ['users', 'user_id_mappings', 'email_verifications', 'user_metadata', 'user_roles'];

function psql(databaseUrl: string, script: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('psql', [databaseUrl, '-v', 'ON_ERROR_STOP=1', '-q', '-X', '-f', '-'], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`psql exited ${code}: ${stderr.slice(0, 500)}`))));
    child.stdin.end(script);
  });
}

export async function dumpImportedRows(databaseUrl: string, dir: string): Promise<void> {
  await psql(databaseUrl, tables.map((table) => `\\copy ${table} TO '${path.join(dir, `${table}.copy`)}'\n`).join(''));
}

// Milliseconds psql needed to load the dumped rows.
export async function timeCopyInto(databaseUrl: string, dir: string): Promise<number> {
  const script = ['BEGIN;\n', ...tables.map((table) => `\\copy ${table} FROM '${path.join(dir, `${table}.copy`)}'\n`), 'COMMIT;\n'].join(
    '',
  );
  const started = performance.now();
  await psql(databaseUrl, script);
  return performance.now() - started;
}
