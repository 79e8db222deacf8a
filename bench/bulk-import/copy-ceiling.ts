import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import { benchUser } from './generate.js';

// The ceiling: the same users, as the rows the import ends up writing (users, user_id_mappings,
// email_verifications, user_metadata), streamed with COPY ... FROM STDIN through psql into a schema with the same
// tables and indexes, in one transaction.

function copyText(value: string | null): string {
  if (value === null) return '\\N';
  return value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

export function copyScript(schema: string, total: number, hashes: string[], baseTime: number): string {
  const users: string[] = [];
  const mappings: string[] = [];
  const verified: string[] = [];
  const metadata: string[] = [];
  for (let i = 0; i < total; i++) {
    const user = benchUser(i, hashes, baseTime);
    const id = crypto.randomUUID();
    users.push([id, 'public', 'emailpassword', String(user.timeJoined), user.email, null, null, null, user.hash].map(copyText).join('\t'));
    mappings.push(`${id}\t${copyText(user.externalUserId)}\t\\N`);
    if (user.verified) verified.push(`${id}\t${copyText(user.email)}`);
    if (user.metadata) metadata.push(`${id}\t${copyText(JSON.stringify(user.metadata))}`);
  }
  const block = (table: string, columns: string, rows: string[]) =>
    `COPY ${schema}.${table} (${columns}) FROM STDIN;\n${rows.join('\n')}${rows.length > 0 ? '\n' : ''}\\.\n`;
  return [
    'BEGIN;\n',
    block(
      'users',
      'user_id, tenant_id, recipe_id, time_joined, email, phone_number, third_party_id, third_party_user_id, password_hash',
      users,
    ),
    block('user_id_mappings', 'user_id, external_user_id, external_user_id_info', mappings),
    block('email_verifications', 'user_id, email', verified),
    block('user_metadata', 'user_id, metadata', metadata),
    'COMMIT;\n',
  ].join('');
}

// Milliseconds psql needed to COPY the script in.
export function runCopy(databaseUrl: string, script: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const psql = spawn('psql', [databaseUrl, '-v', 'ON_ERROR_STOP=1', '-q', '-f', '-'], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    psql.stderr.on('data', (chunk) => (stderr += String(chunk)));
    psql.on('error', reject);
    psql.on('close', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`psql exited ${code}: ${stderr}`))));
    psql.stdin.end(script);
  });
}
