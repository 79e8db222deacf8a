import { addLookupKeys, CoreIndex, emptyLookup, presenceOf } from './account-keys.js';
import type { SourceRecord } from './bulk-user.js';
import { completeUsers, type ToComplete } from './complete-users.js';
import { bulkImportBody, delay, type CoreClient } from './core-client.js';
import type { Progress } from './progress.js';
import { assertInvalidWithin } from './invalid-limit.js';
import { queueCounts } from './queue.js';
import type { OpenedSource } from './readers/index.js';
import type { Results } from './results.js';
import { sendUsers, type SendOutcome } from './send-users.js';
import { SentLog, type Sent, type SentLogReader } from './sent-log.js';
import { saveState, type MigrationState } from './state-file.js';
import type { Unsettled } from './tally.js';

export interface PassContext {
  client: CoreClient;
  source: OpenedSource;
  state: MigrationState;
  statePath: string;
  sentLog: SentLog;
  /** What earlier invocations of the run sent, read in step with the export. */
  sentBefore: Pick<SentLogReader, 'sentFor'>;
  /** Settled once nothing stands in the way of writing: batches are read and looked up before, sent after. */
  ready: Promise<void>;
  /**
   * The core held no user when this fresh run started. The export's users share no account or old id (the first
   * record wins), so none of them can be in the core unless this run put it there: batches are not looked up by
   * account. Whoever else writes to the core meanwhile is caught by the import, which refuses a taken account.
   */
  coreHeldNoUsers: boolean;
  results: Results;
  /** Users whose outcome the core did not show when their batch was settled; settled again at the end. */
  unsettled: Unsettled[];
  progress: Progress;
  batchSize: number;
  maxQueued: number;
  maxInvalid: number;
  pollIntervalMs: number;
  signal?: AbortSignal;
  now(): Date;
}

/** A run of consecutive records of the export, holding at most batchSize users. */
interface Batch {
  records: SourceRecord[];
  users: SourceRecord[];
  /**
   * For each user, in the same order, the ids earlier invocations (or the canary check) gave it in the core, and whether
   * one sent it without learning them. Two arrays rather than an object per user: V8 compiled the pass a second time
   * once it began allocating those objects in old space.
   */
  sent: Sent[];
  /** 0-based index after the batch's last record. */
  end: number;
}

/**
 * One pass over the export that sends the users the core does not hold yet and settles every user from the
 * core's answers, one batch at a time: a lookup by old id, account and known core ids before sending (users
 * already there are counted from it and never sent, so re-running a finished import sends nothing), then, for
 * the users sent, a lookup by the ids the core gave them. Records an earlier invocation of the run handled are
 * settled the same way without being sent. Returns false when interrupted.
 */
export async function migrateAll(context: PassContext): Promise<boolean> {
  const { state } = context;
  const canaries = new Map(state.canaryCreated.map((canary) => [canary.email, canary.userId]));
  const counts = { read: 0, sent: state.usersQueued };
  const show = (force = false) =>
    context.progress.update(
      {
        // Records before recordsDone were settled by an earlier invocation or an acknowledged batch.
        read: Math.max(counts.read, state.recordsDone),
        sent: counts.sent,
        notSent: state.recordsDone - counts.sent,
        fraction: context.source.totalBytes > 0 ? context.source.bytesRead() / context.source.totalBytes : undefined,
      },
      force,
    );
  const earlierRejections = new Map(state.rejected.map((rejection) => [rejection.record, rejection.reason]));
  const run: RunShared = { earlierRejections, counts, show };
  const settle: Settle = (batch, previous, beforePrevious) => settleBatch(context, run, batch, previous, beforePrevious);
  let batch: Batch = { records: [], users: [], sent: [], end: 0 };
  // The first batches are small, so the core starts importing while the rest of the first full batch is read.
  let batchLimit = Math.min(context.batchSize, FIRST_BATCH);

  context.progress.start('sending');
  const window = new SendWindow();
  // Records the export itself refuses, counted as read, so that --max-invalid stops before the next batch is sent.
  let readInvalid = 0;
  try {
    for await (const record of context.source.records) {
      counts.read++;
      // A chunk of the export yields its records without returning to the event loop: let the core's answers in.
      if (counts.read % YIELD_EVERY === 0) {
        await new Promise((resolve) => setImmediate(resolve));
        show();
      }
      addToBatch(batch, record, context.sentBefore, canaries);
      if (record.problem !== undefined && record.problem.kind !== 'skipped') readInvalid++;
      const tooManyInvalid = readInvalid + context.results.count('validation') > context.maxInvalid;
      // Records without a user (invalid, skipped, twins) are settled with their batch: bounded too.
      if (batch.users.length >= batchLimit || batch.records.length >= RECORDS_PER_BATCH * batchLimit || tooManyInvalid) {
        await window.start(batch, settle);
        batch = { records: [], users: [], sent: [], end: 0 };
        batchLimit = Math.min(context.batchSize, batchLimit * 2);
        if (context.signal?.aborted || tooManyInvalid) break;
      }
    }
  } catch (error) {
    // An export that turns unreadable: the batches in flight finish and save their progress first, so that the
    // report, which is written next, sees the state they leave. A signal stops the read itself (a record too long
    // to yield would otherwise keep it going): that is an interruption, not an error.
    await window.settle();
    if (context.signal?.aborted) return false;
    throw error;
  }
  if (!context.signal?.aborted && batch.records.length > 0) await window.start(batch, settle);
  await window.drain();
  show(true);
  assertInvalidWithin(context.results, context.maxInvalid);
  return !context.signal?.aborted;
}

// Kept out of migrateAll: V8 compiles that function whole while its loop runs, again after each deoptimisation.
function addToBatch(batch: Batch, record: SourceRecord, sentBefore: PassContext['sentBefore'], canaries: Map<string, string>): void {
  batch.records.push(record);
  batch.end = record.index + 1;
  if (!record.user) return;
  const email = record.user.loginMethods[0].email;
  const canaryId = email === undefined ? undefined : canaries.get(email);
  // Asked in export order, as the log is read forwards.
  const sent = sentBefore.sentFor(record.index + 1);
  batch.users.push(record);
  batch.sent.push(canaryId === undefined ? sent : { ids: [...sent.ids, canaryId], intended: sent.intended });
}

// Records read between two turns of the event loop. Each file operation of the sent log and each answer of the core
// waits for such a turn: at 256 the intents of a batch took 60 to 150 ms to reach the disk (four operations, each
// behind a few milliseconds of reading), and the first batch was sent that much later; at 32, about 10 ms.
const YIELD_EVERY = 32;

// Users in the first batch of a pass; each next batch doubles up to --batch-size. At 20,000 users, 250 instead of
// 1,000 made the run a median 4 % shorter (20 runs each, alternated): the cold core starts about 0.1 s sooner.
const FIRST_BATCH = 250;

// A batch ends after this many records per user it may hold, whatever they are.
const RECORDS_PER_BATCH = 4;

// Batches in flight at once: while the core imports one, the next ones are read and looked up, so the command and
// the core work at the same time instead of in turn.
const SEND_WINDOW = 3;

/**
 * The moments of a batch the next ones wait for: `sent` once its request that creates users has been sent (or it
 * decided to send none), `answered` once that request was answered and its ids written to the sent log, `settled`
 * once it has recorded its outcome and saved the state.
 */
interface BatchSteps {
  sent: Promise<void>;
  answered: Promise<void>;
  settled: Promise<void>;
}

type Settle = (batch: Batch, previous: BatchSteps, beforePrevious: BatchSteps) => BatchSteps;

/** What every batch of a pass shares: the core's earlier refusals by record number, the counters, the progress line. */
interface RunShared {
  earlierRejections: ReadonlyMap<number, string>;
  counts: { sent: number };
  show: () => void;
}

const NOTHING: BatchSteps = { sent: Promise.resolve(), answered: Promise.resolve(), settled: Promise.resolve() };

/**
 * Runs up to SEND_WINDOW batches at once; each sends after the one before it was sent and the one before that was
 * answered, and records its outcome only after the one before it did. So two imports are in the core at once (it
 * reads and checks one while PostgreSQL writes the other), and a batch is read and looked up while they run.
 */
class SendWindow {
  private readonly running: Promise<void>[] = [];
  private last = NOTHING;
  private beforeLast = NOTHING;

  async start(batch: Batch, settle: Settle): Promise<void> {
    if (this.running.length >= SEND_WINDOW) await this.running.shift();
    const steps = settle(batch, this.last, this.beforeLast);
    // Awaited later (in drain, when the window is full, or by the next batches); marked handled now so that a
    // failure while an earlier batch is awaited is not reported as unhandled.
    for (const step of [steps.sent, steps.answered, steps.settled]) step.catch(() => {});
    this.running.push(steps.settled);
    this.beforeLast = this.last;
    this.last = steps;
  }

  // Every batch in flight records what it did before the first failure is passed on, so the report sees them all.
  async drain(): Promise<void> {
    const failed = (await Promise.allSettled(this.running.splice(0))).find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  }

  async settle(): Promise<void> {
    await Promise.allSettled(this.running.splice(0));
  }
}

interface Marks {
  sent(): void;
  answered(): void;
}

// The batches of one run hold no two users with a common account or old id (the first record wins), so a batch
// looked up or imported while the ones before it are still being imported can neither be told "absent" for a user
// they create nor collide with them. Requests that create users start in export order, at most two at a time, and
// none starts once the run is interrupted; the sent log is written in export order; a batch that did not send once
// the run is interrupted records nothing, so the report covers whole batches.
function settleBatch(context: PassContext, run: RunShared, batch: Batch, previous: BatchSteps, beforePrevious: BatchSteps): BatchSteps {
  const marks = {} as Marks;
  const sent = new Promise<void>((resolve) => (marks.sent = resolve));
  const answered = new Promise<void>((resolve) => (marks.answered = resolve));
  const settled = sendAndRecord(context, run, batch, { previous, beforePrevious }, marks);
  // A batch that fails before it was sent (or answered) stops the next ones from sending too.
  return { sent: Promise.race([sent, settled]), answered: Promise.race([answered, settled]), settled };
}

async function sendAndRecord(
  context: PassContext,
  run: RunShared,
  batch: Batch,
  waitFor: { previous: BatchSteps; beforePrevious: BatchSteps },
  marks: Marks,
): Promise<void> {
  const { state, results } = context;
  const { earlierRejections, counts, show } = run;
  const { previous, beforePrevious } = waitFor;
  const { held, index } = await lookUp(context.client, batch, context.coreHeldNoUsers);
  const { outcomes, toSend, toComplete } = planBatch(context, earlierRejections, batch, held, index);

  // Made while the batch before is being imported, so that this one is sent as soon as it is answered.
  const intents = SentLog.intentLines(toSend);
  const serialized = toSend.length === 0 ? undefined : bulkImportBody(toSend.map((record) => record.user!));
  await previous.sent;
  await beforePrevious.answered;
  await context.ready;
  if (context.signal?.aborted) {
    marks.sent();
    marks.answered();
    return;
  }

  if (toSend.length > 0) {
    await waitForRoom(context, toSend.length, show);
    await context.sentLog.appendIntents(intents);
    const request = sendUsers(context.client, toSend, serialized);
    marks.sent();
    let answer: Awaited<typeof request>;
    try {
      answer = await request;
    } finally {
      // The sent log stays in export order, also after a batch before this one failed.
      await previous.answered.catch(() => {});
    }
    const { queued, refused, allImported } = answer;
    context.sentLog.append(queued.map(({ record, userId }) => ({ record: record.index + 1, userId })));
    marks.answered();
    state.rejected.push(...refused.map(({ record, reason }) => ({ key: record.key, record: record.index + 1, reason })));
    // An answer that counts every user as imported settles them; one that does not says the core took the batch,
    // not that each user is in it: the core's own ids say which are.
    const imported = allImported ? new Set(queued.map((entry) => entry.userId)) : await confirmedIds(context.client, queued);
    planAnswered(context, outcomes, answer, imported);
    state.usersQueued += queued.length;
    counts.sent += queued.length;
  }
  marks.sent();
  await previous.answered.catch(() => {});
  marks.answered();
  // Users an earlier run created, given what they lack: nothing is created, so neither the sent log nor undo sees them.
  if (toComplete.length > 0)
    for (const [record, settle] of await completeUsers(context.client, results, toComplete)) outcomes.set(record, settle);
  await previous.settled;
  settleRecords(results, batch, outcomes);
  if (batch.end > state.recordsDone) {
    state.recordsDone = batch.end;
    saveState(context.statePath, state, context.now());
  }
  assertInvalidWithin(results, context.maxInvalid);
}

/**
 * What the lookup settles for each user of a batch (kept in record order), the users to send and those to complete.
 * Kept out of sendAndRecord: V8 compiles a function whose loop runs hot, and one with that many awaits costs much.
 */
function planBatch(
  context: PassContext,
  earlierRejections: ReadonlyMap<number, string>,
  batch: Batch,
  held: Set<string>,
  index: CoreIndex,
): { outcomes: Map<SourceRecord, (() => void) | undefined>; toSend: SourceRecord[]; toComplete: ToComplete[] } {
  const { state, results } = context;
  const outcomes = new Map<SourceRecord, (() => void) | undefined>();
  const toSend: SourceRecord[] = [];
  const toComplete: ToComplete[] = [];
  for (let position = 0; position < batch.users.length; position++) {
    const record = batch.users[position];
    const { ids: knownIds, intended } = batch.sent[position];
    const number = record.index + 1;
    const refused = earlierRejections.get(number);
    const createdId = knownIds.find((id) => held.has(id));
    if (refused !== undefined) {
      outcomes.set(record, () => results.add({ user: record.key, record: number, stage: 'validation', reason: refused }));
      continue;
    }
    if (createdId !== undefined) {
      outcomes.set(record, () => results.noteCreated({ user: record.key, record: number, userId: createdId }));
      continue;
    }
    if (knownIds.length > 0) {
      // Sent by an earlier invocation and not held under that id: its queue row says why, read at the end.
      outcomes.set(record, () => context.unsettled.push({ record, ids: knownIds }));
      continue;
    }
    const presence = presenceOf(record.user!, index);
    if (presence.kind === 'incomplete') {
      toComplete.push({ record, userId: presence.userId, missing: presence.missing });
    } else if (presence.kind === 'present' && intended) {
      // Sent when the core held no part of it: the core took it, the answer was never recorded.
      outcomes.set(record, () => results.noteCreated({ user: record.key, record: number, userId: presence.userId }));
    } else if (presence.kind === 'present') {
      outcomes.set(record, () => results.alreadyImported++);
    } else if (presence.kind === 'conflict') {
      outcomes.set(record, () => results.add({ user: record.key, record: number, stage: 'conflict', reason: presence.reason }));
    } else if (record.index < state.recordsDone) {
      outcomes.set(record, () =>
        results.add({
          user: record.key,
          record: number,
          stage: 'conflict',
          reason: 'not sent: it conflicted with another user when checked; run again to import it',
        }),
      );
    } else {
      outcomes.set(record, undefined);
      toSend.push(record);
    }
  }
  return { outcomes, toSend, toComplete };
}

/** What the core's answer settles: the users it took (imported, or left to be settled at the end) and those it refused. */
function planAnswered(
  context: PassContext,
  outcomes: Map<SourceRecord, (() => void) | undefined>,
  { queued, refused }: SendOutcome,
  imported: Set<string>,
): void {
  const { results } = context;
  for (const { record, userId } of queued) {
    const number = record.index + 1;
    outcomes.set(record, () =>
      imported.has(userId)
        ? results.noteCreated({ user: record.key, record: number, userId })
        : context.unsettled.push({ record, ids: [userId] }),
    );
  }
  for (const { record, reason } of refused) {
    outcomes.set(record, () => results.add({ user: record.key, record: record.index + 1, stage: 'validation', reason }));
  }
}

/** Records the outcome of each record of the batch, in export order. */
function settleRecords(results: Results, batch: Batch, outcomes: Map<SourceRecord, (() => void) | undefined>): void {
  for (const record of batch.records) {
    results.noteRecord(record);
    outcomes.get(record)?.();
  }
}

/**
 * Which of the users the core took are in it now. A lookup that fails (the core lost after it took the batch) leaves
 * them all to be settled at the end, so a batch the core holds is always in the report.
 */
async function confirmedIds(client: CoreClient, queued: { userId: string }[]): Promise<Set<string>> {
  if (queued.length === 0) return new Set();
  try {
    return new Set((await client.lookup({ ...emptyLookup(), userIds: queued.map((entry) => entry.userId) })).map((user) => user.userId));
  } catch {
    return new Set();
  }
}

/**
 * What the core holds for a batch: first the ids earlier invocations gave its users (a primary-key probe each),
 * then the old ids and accounts of the users not found that way, so a finished run that is run again probes each
 * user once, by its core id. A batch nobody sent before is one lookup by old id and account, or none when the core
 * held no user as the run started.
 */
async function lookUp(client: CoreClient, batch: Batch, coreHeldNoUsers: boolean): Promise<{ held: Set<string>; index: CoreIndex }> {
  const held = new Set<string>();
  const ids = batch.sent.flatMap((sent) => sent.ids);
  if (ids.length > 0) for (const user of await client.lookup({ ...emptyLookup(), userIds: ids })) held.add(user.userId);
  const body = emptyLookup();
  let keys = 0;
  for (let position = 0; position < batch.users.length; position++) {
    if (batch.sent[position].ids.length > 0 || coreHeldNoUsers) continue;
    addLookupKeys(body, batch.users[position].user!);
    keys++;
  }
  const found = keys === 0 ? { users: [], material: [] } : await client.lookupWithMaterial(body);
  return { held, index: new CoreIndex(found.users, found.material) };
}

// Keeps the core's queue (and the time until users can sign in) bounded on very large exports; a core that imports
// at once adds nothing of the run's to its queue.
async function waitForRoom(context: PassContext, incoming: number, show: () => void): Promise<void> {
  if (context.client.importsAtOnce) return;
  for (;;) {
    const { pending } = await queueCounts(context.client);
    show();
    if (pending + incoming <= context.maxQueued || pending === 0 || context.signal?.aborted) return;
    await delay(context.pollIntervalMs, context.signal);
  }
}
