import type { SourceRecord } from './bulk-user.js';
import { CliError } from './cli-error.js';
import { asRecord, type CoreClient } from './core-client.js';
import { ALREADY_EXISTS, type ExistingUsers } from './existing-users.js';
import type { Results } from './results.js';

/**
 * An older core ignores `dryRun` and would queue the users for real. A value the dry-run route
 * refuses (with no users) tells the two apart without writing anything.
 */
export async function assertDryRunSupported(client: CoreClient): Promise<void> {
  const reply = await client.send('POST', '/bulk-import/users', { query: { dryRun: 'probe' }, body: { users: [] } });
  if (reply.status === 400 && reply.text.includes('dryRun')) return;
  throw new CliError('this core has no dry run for POST /bulk-import/users, so --dry-run cannot check users without importing them');
}

/** Asks the core what it would say about one batch, and files each user under what would happen. */
export async function dryRunBatch(client: CoreClient, existing: ExistingUsers, batch: SourceRecord[], results: Results): Promise<void> {
  if (batch.length === 0) return;
  const reply = await client.dryRun(batch.map((record) => record.user!));
  const body = asRecord(reply.json);
  if (reply.status === 200) {
    results.wouldImport += batch.length;
    return;
  }
  if (reply.status !== 400 || !Array.isArray(body.users)) {
    throw new CliError(`dry run of POST /bulk-import/users answered ${reply.status}: ${reply.text.trim().slice(0, 500)}`);
  }
  const problems = new Map<number, string[]>();
  for (const entry of body.users.map(asRecord)) {
    problems.set(Number(entry.index), Array.isArray(entry.errors) ? entry.errors.map(String) : ['rejected']);
  }
  for (const [position, record] of batch.entries()) {
    const errors = problems.get(position);
    if (!errors) {
      results.wouldImport++;
      continue;
    }
    const reason = errors.join('; ');
    const conflict = errors.every((error) => ALREADY_EXISTS.test(error));
    const method = record.user!.loginMethods[0];
    if (conflict && (await existing.isAlreadyImported(record.user!.externalUserId, method, reason))) {
      results.alreadyImported++;
      continue;
    }
    results.add({ user: record.key, record: record.index + 1, stage: conflict ? 'conflict' : 'validation', reason });
  }
}
