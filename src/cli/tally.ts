import { addLookupKeys, CoreIndex, emptyLookup, presenceOf, type CoreUser } from './account-keys.js';
import type { SourceRecord } from './bulk-user.js';
import type { CoreClient } from './core-client.js';
import { ALREADY_EXISTS } from './already-exists.js';
import { queueCounts, queueRowsAmong } from './queue.js';
import type { OpenedSource } from './readers/index.js';
import type { Results } from './results.js';
import type { SentLogReader } from './sent-log.js';
import type { MigrationState } from './state-file.js';

// POST /bulk-import/users/lookup takes at most this many keys of each kind.
const MAX_LOOKUP_KEYS = 10_000;

/** A user sent to the core (by this invocation or an earlier one) that its batch's lookup did not find under its id. */
export interface Unsettled {
  record: SourceRecord;
  /** The ids it was sent under (more than one when a lost answer made its batch go twice), or its canary id. */
  ids: readonly string[];
}

interface QueueView {
  failed: Map<string, string>;
  pending: Set<string>;
}

/**
 * Settles the users sent but not found under their id when their batch was settled, from what the core holds
 * now and its queue: imported after all (a core that queues instead of importing at once), still queued, failed
 * with the queue row's reason, or created under another id by a batch that went twice. Returns the ids of the
 * FAILED rows such a second copy left, which the caller removes. Only failures come here, so this stays small.
 */
export async function settleUnsettled(client: CoreClient, unsettled: Unsettled[], results: Results): Promise<string[]> {
  const duplicateRows: string[] = [];
  if (unsettled.length === 0) return duplicateRows;
  const ours = new Set(unsettled.flatMap((entry) => entry.ids));
  const counts = await queueCounts(client);
  const queue: QueueView = {
    failed: counts.failed > 0 ? await queueRowsAmong(client, 'FAILED', ours) : new Map(),
    pending: counts.pending > 0 ? await pendingAmong(client, ours) : new Set(),
  };
  let chunk: Unsettled[] = [];
  let ids = 0;
  for (const entry of unsettled) {
    if (chunk.length >= MAX_LOOKUP_KEYS / 2 || ids + entry.ids.length > MAX_LOOKUP_KEYS) {
      await settle(client, chunk, queue, results, duplicateRows);
      chunk = [];
      ids = 0;
    }
    chunk.push(entry);
    ids += entry.ids.length;
  }
  await settle(client, chunk, queue, results, duplicateRows);
  return duplicateRows;
}

async function pendingAmong(client: CoreClient, ours: ReadonlySet<string>): Promise<Set<string>> {
  const [fresh, processing] = await Promise.all([queueRowsAmong(client, 'NEW', ours), queueRowsAmong(client, 'PROCESSING', ours)]);
  return new Set([...fresh.keys(), ...processing.keys()]);
}

async function settle(client: CoreClient, chunk: Unsettled[], queue: QueueView, results: Results, duplicateRows: string[]) {
  if (chunk.length === 0) return;
  const body = emptyLookup();
  for (const { record, ids } of chunk) {
    addLookupKeys(body, record.user!);
    body.userIds.push(...ids);
  }
  const coreUsers = await client.lookup(body);
  const held = new Map<string, CoreUser>(coreUsers.map((user) => [user.userId, user]));
  const index = new CoreIndex(coreUsers);
  for (const { record, ids } of chunk) {
    const number = record.index + 1;
    const createdId = ids.find((id) => held.has(id));
    if (createdId !== undefined) {
      results.noteCreated({ user: record.key, record: number, userId: createdId });
      continue;
    }
    if (ids.some((id) => queue.pending.has(id))) {
      results.stillQueued++;
      continue;
    }
    const failedIds = ids.filter((id) => queue.failed.has(id));
    const failure = failedIds.map((id) => queue.failed.get(id)!).find((message) => message !== undefined);
    const presence = presenceOf(record.user!, index);
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
export async function tallyFromState(context: {
  source: OpenedSource;
  state: MigrationState;
  sentBefore: SentLogReader;
  results: Results;
}): Promise<void> {
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
    const { ids, intended } = context.sentBefore.sentFor(number);
    const sent = ids.length > 0 || intended;
    if (rejection) results.add({ user: record.key, record: number, stage: 'validation', reason: rejection.reason });
    else if (canaryId !== undefined && !sent) results.noteCreated({ user: record.key, record: number, userId: canaryId });
    else results.stillQueued++;
  }
}
