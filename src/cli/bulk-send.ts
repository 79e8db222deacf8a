import type { SourceRecord } from './bulk-user.js';
import { CliError } from './cli-error.js';
import { delay, type CoreClient } from './core-client.js';
import { checkPresence } from './presence-check.js';
import type { Progress } from './progress.js';
import { queueCounts } from './queue.js';
import type { OpenedSource } from './readers/index.js';
import type { SentLog } from './sent-log.js';
import { saveState, type MigrationState } from './state-file.js';

export interface SendContext {
  client: CoreClient;
  source: OpenedSource;
  state: MigrationState;
  statePath: string;
  sentLog: SentLog;
  progress: Progress;
  batchSize: number;
  maxQueued: number;
  pollIntervalMs: number;
  signal?: AbortSignal;
  now(): Date;
}

/** Counts for the progress line only; the report's numbers come from the core at the end. */
interface SendCounts {
  read: number;
  sent: number;
}

/**
 * Queues the users of the export that the core does not hold yet, one batch per request, from where an
 * earlier invocation of the same run stopped. Users already in the core are recognised in bulk and not sent
 * again, so re-running a finished import sends nothing. Returns false when interrupted.
 */
export async function sendAll(context: SendContext): Promise<boolean> {
  const counts: SendCounts = { read: 0, sent: context.state.usersQueued };
  const show = (force = false) =>
    context.progress.update(
      {
        // Records before recordsDone were settled by an earlier invocation or an acknowledged batch.
        read: Math.max(counts.read, context.state.recordsDone),
        sent: counts.sent,
        notSent: context.state.recordsDone - counts.sent,
        fraction: context.source.totalBytes > 0 ? context.source.bytesRead() / context.source.totalBytes : undefined,
      },
      force,
    );
  const canaries = new Set(context.state.canaryCreated.map((canary) => canary.email));
  let batch: SourceRecord[] = [];

  context.progress.start('sending');
  const window = new SendWindow();
  try {
    for await (const record of context.source.records) {
      counts.read++;
      const email = record.user?.loginMethods[0].email;
      if (record.index >= context.state.recordsDone && record.user && !(email !== undefined && canaries.has(email))) {
        batch.push(record);
      }
      if (batch.length >= context.batchSize) {
        await window.start(batch, record.index + 1, (sent, recordsDone, previous) =>
          flush(context, sent, recordsDone, counts, show, previous),
        );
        batch = [];
        if (context.signal?.aborted) break;
      }
      show();
    }
  } catch (error) {
    // An export that turns unreadable: the batches in flight finish and save their progress first, so that the
    // report, which is written next, sees the state they leave.
    await window.settle();
    throw error;
  }
  if (!context.signal?.aborted) {
    await window.start(batch, counts.read, (sent, recordsDone, previous) => flush(context, sent, recordsDone, counts, show, previous));
  }
  await window.drain();
  show(true);
  return !context.signal?.aborted;
}

// Batches in flight at once: while the core imports one, the next ones are read and looked up, so the command and
// the core work at the same time instead of in turn.
const SEND_WINDOW = 3;

type Flush = (batch: SourceRecord[], recordsDone: number, previous: Promise<void>) => Promise<void>;

/** Runs up to SEND_WINDOW flushes at once; each records its outcome only after the one before it did. */
class SendWindow {
  private readonly running: Promise<void>[] = [];
  private last: Promise<void> = Promise.resolve();

  async start(batch: SourceRecord[], recordsDone: number, flush: Flush): Promise<void> {
    if (this.running.length >= SEND_WINDOW) await this.running.shift();
    const done = flush(batch, recordsDone, this.last);
    // Awaited later (in drain or when the window is full); marked handled now so that a failure while an
    // earlier batch is awaited is not reported as unhandled.
    done.catch(() => {});
    this.running.push(done);
    this.last = done;
  }

  async drain(): Promise<void> {
    await Promise.all(this.running.splice(0));
  }

  async settle(): Promise<void> {
    await Promise.allSettled(this.running.splice(0));
  }
}

// The batches of one run hold no two users with a common account or old id (the first record wins), so a batch
// looked up while the one before it is still being imported cannot be told "absent" for a user that one creates.
// Requests that create users go one at a time and in export order, and none starts once the run is interrupted.
async function flush(
  context: SendContext,
  batch: SourceRecord[],
  recordsDone: number,
  counts: SendCounts,
  show: () => void,
  previous: Promise<void>,
) {
  const { state } = context;
  const skip = recordsDone <= state.recordsDone;
  const presence = skip ? [] : await checkPresence(context.client, batch);
  await previous;
  if (skip || context.signal?.aborted) return;
  const absent = batch.filter((_, i) => presence[i].kind === 'absent');
  let queued: { record: number; userId: string }[] = [];
  if (absent.length > 0) {
    await waitForRoom(context, absent.length, show);
    queued = await enqueueDroppingInvalid(context, absent);
  }
  context.sentLog.append(queued);
  state.usersQueued += queued.length;
  counts.sent += queued.length;
  state.recordsDone = recordsDone;
  saveState(context.statePath, state, context.now());
}

// Keeps the core's queue (and the time until users can sign in) bounded on very large exports.
async function waitForRoom(context: SendContext, incoming: number, show: () => void): Promise<void> {
  for (;;) {
    const { pending } = await queueCounts(context.client);
    show();
    if (pending + incoming <= context.maxQueued || pending === 0 || context.signal?.aborted) return;
    await delay(context.pollIntervalMs, context.signal);
  }
}

/** The core refuses a whole request for one invalid user: record those, send the rest again. */
async function enqueueDroppingInvalid(context: SendContext, batch: SourceRecord[]): Promise<{ record: number; userId: string }[]> {
  let pending = batch;
  for (let attempt = 0; attempt < 3 && pending.length > 0; attempt++) {
    const result = await context.client.enqueue(pending.map((record) => record.user!));
    if (result.ok) return pending.map((record, i) => ({ record: record.index + 1, userId: result.userIds[i] }));
    const refused = new Map(result.invalid.map((entry) => [entry.index, entry.errors]));
    if (refused.size === 0) break;
    for (const [position, record] of pending.entries()) {
      const errors = refused.get(position);
      if (errors) context.state.rejected.push({ key: record.key, record: record.index + 1, reason: errors.join('; ') });
    }
    pending = pending.filter((_, position) => !refused.has(position));
  }
  if (pending.length > 0) throw new CliError('the core kept refusing a batch without saying which users are wrong');
  return [];
}
