import type { SourceRecord } from './bulk-user.js';
import { CliError } from './cli-error.js';
import { delay, type CoreClient } from './core-client.js';
import type { Progress } from './progress.js';
import { queueCounts, type QueueCounts } from './queue.js';
import type { OpenedSource } from './readers/index.js';
import type { Results } from './results.js';
import { saveState, type MigrationState } from './state-file.js';

export interface SendContext {
  client: CoreClient;
  source: OpenedSource;
  state: MigrationState;
  statePath: string;
  results: Results;
  progress: Progress;
  batchSize: number;
  maxQueued: number;
  pollIntervalMs: number;
  signal?: AbortSignal;
  now(): Date;
}

/**
 * Reads the whole export (so the report covers every user) and queues the users an earlier run did
 * not get acknowledged, one batch per request. Returns false when interrupted.
 */
export async function sendAll(context: SendContext): Promise<boolean> {
  const { state, results } = context;
  const canaries = new Set(state.canaryImported);
  const live: Live = { counts: { pending: 0, failed: state.preexistingFailedIds.length } };
  const show = (force = false) => context.progress.update(liveCounts(context, live.counts), force);
  let batch: SourceRecord[] = [];

  context.progress.start('sending');
  for await (const record of context.source.records) {
    results.noteRecord(record);
    const method = record.user?.loginMethods[0];
    if (method?.recipeId === 'emailpassword' && canaries.has(method.email?.toLowerCase() ?? '')) {
      results.importedOneByOne++;
    } else if (record.index >= state.recordsDone && record.user) {
      batch.push(record);
      if (batch.length >= context.batchSize) {
        await flush(context, batch, record.index + 1, live, show);
        batch = [];
      }
    }
    if (context.signal?.aborted) return false;
    show();
  }
  await flush(context, batch, results.read, live, show);
  show(true);
  return true;
}

interface Live {
  counts: QueueCounts;
}

async function flush(context: SendContext, batch: SourceRecord[], recordsDone: number, live: Live, show: () => void): Promise<void> {
  const { state } = context;
  if (batch.length > 0) {
    await waitForRoom(context, batch.length, live, show);
    state.usersQueued += await enqueueDroppingInvalid(context, batch);
  }
  state.recordsDone = Math.max(state.recordsDone, recordsDone);
  saveState(context.statePath, state, context.now());
}

// Keeps the core's queue (and the time until users can sign in) bounded on very large exports.
async function waitForRoom(context: SendContext, incoming: number, live: Live, show: () => void): Promise<void> {
  for (;;) {
    const counts = { ...(await queueCounts(context.client)), queuedBefore: context.state.usersQueued };
    live.counts = counts;
    show();
    if (counts.pending + incoming <= context.maxQueued || counts.pending === 0 || context.signal?.aborted) return;
    await delay(context.pollIntervalMs, context.signal);
  }
}

/** The core refuses a whole request for one invalid user: record those, send the rest again. */
async function enqueueDroppingInvalid(context: SendContext, batch: SourceRecord[]): Promise<number> {
  let pending = batch;
  for (let attempt = 0; attempt < 3 && pending.length > 0; attempt++) {
    const result = await context.client.enqueue(pending.map((record) => record.user!));
    if (result.ok) return pending.length;
    const refused = new Map(result.invalid.map((entry) => [entry.index, entry.errors]));
    if (refused.size === 0) break;
    for (const [position, record] of pending.entries()) {
      const errors = refused.get(position);
      if (!errors) continue;
      const rejection = { key: record.key, record: record.index + 1, reason: errors.join('; ') };
      context.state.rejected.push(rejection);
      context.results.add({ user: rejection.key, record: rejection.record, stage: 'validation', reason: rejection.reason });
    }
    pending = pending.filter((_, position) => !refused.has(position));
  }
  if (pending.length > 0) throw new CliError('the core kept refusing a batch without saying which users are wrong');
  return 0;
}

export function liveCounts(context: Pick<SendContext, 'state' | 'results' | 'source'>, counts: QueueCounts) {
  const failedInCore = Math.max(0, counts.failed - context.state.preexistingFailedIds.length);
  return {
    read: context.results.read,
    sent: context.state.usersQueued,
    imported: Math.max(0, (counts.queuedBefore ?? context.state.usersQueued) - counts.pending - failedInCore) + context.results.importedOneByOne,
    failed: context.results.failures + failedInCore,
    fraction: context.source.totalBytes > 0 ? context.source.bytesRead() / context.source.totalBytes : undefined,
  };
}
