import type { SourceRecord } from './bulk-user.js';
import { CliError } from './cli-error.js';
import type { CoreClient, EnqueueResult } from './core-client.js';
import type { KeptBytes } from './kept-bytes.js';

export interface SendOutcome {
  /** The users the core took, with the id it gave each, in the order sent. */
  queued: { record: SourceRecord; userId: string }[];
  /** The users it refused, each with why. */
  refused: { record: SourceRecord; reason: string }[];
  /** Whether the core answered that it imported every user it took. */
  allImported: boolean;
}

/**
 * One batch to POST /bulk-import/users?importNow=true, whatever the core answers: a user the core's validation
 * refuses is noted and the rest sent again; a request too large for it goes as halves; a 500 on one user is found
 * by halving and that user refused. `serialized` is the batch as JSON, made beforehand; released once its request
 * is over, however it ended.
 */
export async function sendUsers(client: CoreClient, batch: SourceRecord[], serialized: KeptBytes | undefined): Promise<SendOutcome> {
  try {
    return await sendUsersOnce(client, batch, serialized);
  } finally {
    serialized?.release();
  }
}

async function sendUsersOnce(client: CoreClient, batch: SourceRecord[], serialized: KeptBytes | undefined): Promise<SendOutcome> {
  const refused: SendOutcome['refused'] = [];
  let pending = batch;
  for (let attempt = 0; attempt < 3 && pending.length > 0; attempt++) {
    const result = await client.enqueue(
      pending.map((record) => record.user!),
      pending === batch ? serialized : undefined,
    );
    if (result.ok) return joined({ queued: [], refused, allImported: true }, took(pending, result));
    if ('tooLarge' in result) return joined({ queued: [], refused, allImported: true }, await sendInHalves(client, pending));
    if ('serverError' in result) {
      return joined({ queued: [], refused, allImported: true }, await isolateServerError(client, pending, result.serverError));
    }
    const errors = new Map(result.invalid.map((entry) => [entry.index, entry.errors]));
    if (errors.size === 0) break;
    for (const [position, record] of pending.entries()) {
      const reasons = errors.get(position);
      if (reasons) refused.push({ record, reason: reasons.join('; ') });
    }
    pending = pending.filter((_, position) => !errors.has(position));
  }
  if (pending.length > 0) throw new CliError('the core kept refusing a batch without saying which users are wrong');
  return { queued: [], refused, allImported: true };
}

/**
 * A request the core fails on (500, retried) goes again as two halves, to find the one user it fails on: that user is
 * refused with the core's message and the others are imported. When both halves fail, it is not one user's doing,
 * and the run stops as the core asks.
 */
async function isolateServerError(client: CoreClient, users: SourceRecord[], message: string): Promise<SendOutcome> {
  if (users.length === 1) return refusedAlone(users[0], `the core failed on this user (500: ${message})`);
  const parts = halves(users);
  const answers: EnqueueResult[] = [];
  for (const half of parts) answers.push(await client.enqueue(half.map((record) => record.user!)));
  const failures = answers.map((answer) => (!answer.ok && 'serverError' in answer ? answer.serverError : undefined));
  if (failures.every((failure) => failure !== undefined)) {
    throw new CliError(`the core failed on a batch and on both its halves (500: ${message}): not one user's doing`);
  }
  const outcomes: SendOutcome[] = [];
  for (const [i, half] of parts.entries()) {
    const answer = answers[i];
    const failure = failures[i];
    if (failure !== undefined) outcomes.push(await isolateServerError(client, half, failure));
    else outcomes.push(answer.ok ? took(half, answer) : await sendUsers(client, half, undefined));
  }
  return joined(...outcomes);
}

/** A request the core found too large goes again as two halves; a single user too large for it is refused alone. */
async function sendInHalves(client: CoreClient, users: SourceRecord[]): Promise<SendOutcome> {
  if (users.length === 1)
    return refusedAlone(users[0], 'larger than the core takes in one request (its bulk_import_body_limit_bytes): not sent');
  const [first, second] = halves(users);
  return joined(await sendUsers(client, first, undefined), await sendUsers(client, second, undefined));
}

function took(users: SourceRecord[], result: Extract<EnqueueResult, { ok: true }>): SendOutcome {
  return { queued: users.map((record, i) => ({ record, userId: result.userIds[i] })), refused: [], allImported: result.allImported };
}

function refusedAlone(record: SourceRecord, reason: string): SendOutcome {
  return { queued: [], refused: [{ record, reason }], allImported: true };
}

function halves(users: SourceRecord[]): [SourceRecord[], SourceRecord[]] {
  const middle = Math.ceil(users.length / 2);
  return [users.slice(0, middle), users.slice(middle)];
}

/** Outcomes of consecutive parts of one batch, as one. */
function joined(...outcomes: SendOutcome[]): SendOutcome {
  return {
    queued: outcomes.flatMap((outcome) => outcome.queued),
    refused: outcomes.flatMap((outcome) => outcome.refused),
    allImported: outcomes.every((outcome) => outcome.allImported),
  };
}
