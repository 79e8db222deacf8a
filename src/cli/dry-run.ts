import { ALREADY_EXISTS, CODED_IMPORT_ERROR } from './already-exists.js';
import type { SourceRecord } from './bulk-user.js';
import { CliError } from './cli-error.js';
import { asRecord, type CoreClient } from './core-client.js';
import { assertInvalidWithin } from './invalid-limit.js';
import { checkPresence } from './presence-check.js';
import type { Progress } from './progress.js';
import type { OpenedSource } from './readers/index.js';
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

/**
 * Files every user under what a real run would do, with the same steps: the export's own checks and twins,
 * the same bulk lookup of users the core already holds, then the core's validation of the rest.
 */
export async function dryRunAll(
  client: CoreClient,
  source: OpenedSource,
  limits: { batchSize: number; maxInvalid: number },
  results: Results,
  progress: Progress,
) {
  const { batchSize, maxInvalid } = limits;
  progress.start('checking', { sent: 'would import', notSent: 'would not' });
  let batch: SourceRecord[] = [];
  const show = (force = false) =>
    progress.update(
      {
        read: results.read,
        sent: results.wouldImport,
        notSent: results.alreadyImported + results.completed.length + results.failed + results.invalid + results.count('skipped'),
        fraction: source.totalBytes > 0 ? source.bytesRead() / source.totalBytes : undefined,
      },
      force,
    );
  for await (const record of source.records) {
    results.noteRecord(record);
    if (record.problem) assertInvalidWithin(results, maxInvalid);
    if (record.user) batch.push(record);
    if (batch.length >= batchSize) {
      await dryRunBatch(client, batch, results);
      batch = [];
      assertInvalidWithin(results, maxInvalid);
    }
    show();
  }
  await dryRunBatch(client, batch, results);
  show(true);
  assertInvalidWithin(results, maxInvalid);
}

async function dryRunBatch(client: CoreClient, batch: SourceRecord[], results: Results): Promise<void> {
  const presence = await checkPresence(client, batch);
  const absent: SourceRecord[] = [];
  batch.forEach((record, i) => {
    const found = presence[i];
    if (found.kind === 'present') results.alreadyImported++;
    else if (found.kind === 'incomplete')
      results.noteCompleted({ user: record.key, record: record.index + 1, userId: found.userId, added: found.missing });
    else if (found.kind === 'conflict')
      results.add({ user: record.key, record: record.index + 1, stage: 'conflict', reason: found.reason });
    else absent.push(record);
  });
  if (absent.length === 0) return;
  const reply = await client.dryRun(absent.map((record) => record.user!));
  const body = asRecord(reply.json);
  if (reply.status === 200) {
    results.wouldImport += absent.length;
    return;
  }
  if (reply.status !== 400 || !Array.isArray(body.users)) {
    throw new CliError(`dry run of POST /bulk-import/users answered ${reply.status}: ${reply.text.trim().slice(0, 500)}`);
  }
  const problems = new Map<number, string[]>();
  for (const entry of body.users.map(asRecord)) {
    problems.set(Number(entry.index), Array.isArray(entry.errors) ? entry.errors.map(String) : ['rejected']);
  }
  for (const [position, record] of absent.entries()) {
    const errors = problems.get(position);
    if (!errors) {
      results.wouldImport++;
      continue;
    }
    // Filed as the real run files them: an existing account is a conflict, any other coded import error (E027, a
    // conflicting account info; E034, a missing role) an import failure, both counted as failed; the rest invalid.
    const stage = errors.every((error) => ALREADY_EXISTS.test(error))
      ? 'conflict'
      : errors.every((error) => CODED_IMPORT_ERROR.test(error))
        ? 'import'
        : 'validation';
    results.add({ user: record.key, record: record.index + 1, stage, reason: errors.join('; ') });
  }
}
