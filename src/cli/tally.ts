import { addLookupKeys, CoreIndex, emptyLookup, presenceOf, type CoreUser } from './account-keys.js';
import type { SourceRecord } from './bulk-user.js';
import type { CoreClient } from './core-client.js';
import { ALREADY_EXISTS } from './already-exists.js';
import { queueRowsAmong } from './queue.js';
import type { OpenedSource } from './readers/index.js';
import type { Results } from './results.js';
import type { MigrationState } from './state-file.js';

// POST /bulk-import/users/lookup takes at most this many keys of each kind.
const MAX_LOOKUP_KEYS = 10_000;

export interface TallyContext {
  client: CoreClient;
  source: OpenedSource;
  state: MigrationState;
  /** 1-based record → ids this run queued for it. */
  sent: ReadonlyMap<number, string[]>;
  results: Results;
  batchSize: number;
  /** Whether the core's queue may still hold some of this run's users. */
  queueBusy: boolean;
}

interface QueueView {
  failed: Map<string, string>;
  pending: Set<string>;
}

/**
 * Settles every user of the export read so far from what the core holds now: one lookup per batch, by old
 * id, account and the ids this run queued. Nothing is counted as imported that the core does not hold.
 * Returns the ids of FAILED rows left by a batch that went twice (its first answer was lost), which the
 * caller removes.
 */
export async function tally(context: TallyContext): Promise<string[]> {
  const ours = new Set([...context.sent.values()].flat());
  const queue: QueueView = {
    failed: await queueRowsAmong(context.client, 'FAILED', ours),
    pending: context.queueBusy ? await pendingAmong(context.client, ours) : new Set(),
  };
  const rejected = new Map(context.state.rejected.map((rejection) => [rejection.record, rejection]));
  const duplicateRows: string[] = [];
  let batch: SourceRecord[] = [];
  let idsInBatch = 0;
  for await (const record of context.source.records) {
    if (record.index >= context.state.recordsDone) break;
    context.results.noteRecord(record);
    if (!record.user) continue;
    const rejection = rejected.get(record.index + 1);
    if (rejection) {
      context.results.add({ user: record.key, record: rejection.record, stage: 'validation', reason: rejection.reason });
      continue;
    }
    // A batch sent twice has two ids per user: keep each lookup within the core's limit per key kind.
    const ids = context.sent.get(record.index + 1)?.length ?? 0;
    if (batch.length >= context.batchSize || idsInBatch + ids > MAX_LOOKUP_KEYS) {
      await settle(context, batch, queue, duplicateRows);
      batch = [];
      idsInBatch = 0;
    }
    batch.push(record);
    idsInBatch += ids;
  }
  await settle(context, batch, queue, duplicateRows);
  return duplicateRows;
}

async function pendingAmong(client: CoreClient, ours: ReadonlySet<string>): Promise<Set<string>> {
  const [fresh, processing] = await Promise.all([queueRowsAmong(client, 'NEW', ours), queueRowsAmong(client, 'PROCESSING', ours)]);
  return new Set([...fresh.keys(), ...processing.keys()]);
}

async function settle(context: TallyContext, batch: SourceRecord[], queue: QueueView, duplicateRows: string[]): Promise<void> {
  if (batch.length === 0) return;
  const body = emptyLookup();
  for (const record of batch) {
    addLookupKeys(body, record.user!);
    body.userIds.push(...(context.sent.get(record.index + 1) ?? []));
  }
  const canaries = new Map(context.state.canaryCreated.map((canary) => [canary.email, canary.userId]));
  const coreUsers = await context.client.lookup(body);
  const held = new Map<string, CoreUser>(coreUsers.map((user) => [user.userId, user]));
  const index = new CoreIndex(coreUsers);
  const { results } = context;
  for (const record of batch) {
    const number = record.index + 1;
    const user = record.user!;
    const ids = [...(context.sent.get(number) ?? [])];
    const canaryId = user.loginMethods[0].email === undefined ? undefined : canaries.get(user.loginMethods[0].email);
    if (canaryId !== undefined) ids.push(canaryId);
    const createdId = ids.find((id) => held.has(id));
    if (createdId !== undefined) {
      results.noteCreated({ user: record.key, record: number, userId: createdId });
      continue;
    }
    const presence = presenceOf(user, index);
    if (ids.length === 0) {
      if (presence.kind === 'present') results.alreadyImported++;
      else if (presence.kind === 'conflict') results.add({ user: record.key, record: number, stage: 'conflict', reason: presence.reason });
      else
        results.add({
          user: record.key,
          record: number,
          stage: 'conflict',
          reason: 'not sent: it conflicted with another user when checked; run again to import it',
        });
      continue;
    }
    if (ids.some((id) => queue.pending.has(id))) {
      results.stillQueued++;
      continue;
    }
    const failedIds = ids.filter((id) => queue.failed.has(id));
    const failure = failedIds.map((id) => queue.failed.get(id)!).find((message) => message !== undefined);
    if (presence.kind === 'present') {
      // Sent when the core did not hold it, held now under another id: the batch went twice after a lost
      // answer, and the second copy failed as a duplicate of the first.
      if (failure === undefined || ALREADY_EXISTS.test(failure)) {
        duplicateRows.push(...failedIds);
        results.noteCreated({ user: record.key, record: number, userId: presence.userId });
        continue;
      }
    }
    if (failure !== undefined) results.add({ user: record.key, record: number, stage: 'import', reason: failure });
    else
      results.add({
        user: record.key,
        record: number,
        stage: 'lost',
        reason: 'sent, but neither in the core nor in its queue (was the queue cleared?)',
      });
  }
}

/**
 * Without the core (it was lost mid-run): settles what the export and the state file know (invalid, skipped, twins,
 * refused, canaries) and counts every other user handled so far as still queued, so that the totals add up and
 * nothing is called imported that the core did not confirm.
 */
export async function tallyFromState(context: Pick<TallyContext, 'source' | 'state' | 'sent' | 'results'>): Promise<void> {
  const { state, results } = context;
  const rejected = new Map(state.rejected.map((rejection) => [rejection.record, rejection]));
  const canaries = new Map(state.canaryCreated.map((canary) => [canary.email, canary.userId]));
  for await (const record of context.source.records) {
    if (record.index >= state.recordsDone) break;
    results.noteRecord(record);
    if (!record.user) continue;
    const number = record.index + 1;
    const rejection = rejected.get(number);
    const email = record.user.loginMethods[0].email;
    const canaryId = email === undefined ? undefined : canaries.get(email);
    if (rejection) results.add({ user: record.key, record: number, stage: 'validation', reason: rejection.reason });
    else if (canaryId !== undefined && !context.sent.has(number))
      results.noteCreated({ user: record.key, record: number, userId: canaryId });
    else results.stillQueued++;
  }
}
