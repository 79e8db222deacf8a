import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import { benchUser, linkedContacts } from './generate.js';

// The ceiling: the same users, as the rows the import ends up writing (users, user_id_mappings,
// email_verifications, user_metadata; for linked users their primary groups and ids first, as the import does),
// streamed with COPY ... FROM STDIN through psql into a schema with the same tables, indexes and triggers, in one
// transaction with the planner settings of an import batch.

function copyText(value: string | null): string {
  if (value === null) return '\\N';
  return value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

export function copyScript(schema: string, total: number, hashes: string[], baseTime: number): string {
  const users: string[] = [];
  const mappings: string[] = [];
  const verified: string[] = [];
  const metadata: string[] = [];
  const groups: string[] = [];
  const ids: string[] = [];
  for (let i = 0; i < total; i++) {
    const user = benchUser(i, hashes, baseTime);
    const id = crypto.randomUUID();
    users.push([id, 'public', 'emailpassword', String(user.timeJoined), user.email, null, null, null, user.hash].map(copyText).join('\t'));
    if (user.linked) {
      const { googleId, phoneNumber } = linkedContacts(i);
      const [google, phone] = [crypto.randomUUID(), crypto.randomUUID()];
      const time = String(user.timeJoined);
      users.push([google, 'public', 'thirdparty', time, user.email, null, 'google', googleId, null].map(copyText).join('\t'));
      users.push([phone, 'public', 'passwordless', time, null, phoneNumber, null, null, null].map(copyText).join('\t'));
      groups.push(`${id}\tt\t${time}`);
      for (const member of [id, google, phone]) ids.push(`${member}\t${id}`);
    }
    mappings.push(`${id}\t${copyText(user.externalUserId)}\t\\N`);
    if (user.verified) verified.push(`${id}\t${copyText(user.email)}`);
    if (user.metadata) metadata.push(`${id}\t${copyText(JSON.stringify(user.metadata))}`);
  }
  const block = (table: string, columns: string, rows: string[]) =>
    `COPY ${schema}.${table} (${columns}) FROM STDIN;\n${rows.join('\n')}${rows.length > 0 ? '\n' : ''}\\.\n`;
  return [
    'BEGIN;\n',
    // The plan settings of an import batch (useKeyDrivenPlans), for the statements the users trigger runs.
    'SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_hashjoin = off;\n',
    'SET LOCAL enable_mergejoin = off; SET LOCAL enable_sort = off;\n',
    block('user_groups', 'group_id, is_primary, time_joined', groups),
    block('user_ids', 'user_id, group_id', ids),
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
