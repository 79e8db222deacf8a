import type { SourceRecord } from './bulk-user.js';
import { CliError } from './cli-error.js';
import type { CoreClient, EnqueueResult } from './core-client.js';

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
 * by halving and that user refused. `serialized` is the batch as JSON, made beforehand.
 */
export async function sendUsers(client: CoreClient, batch: SourceRecord[], serialized: string | undefined): Promise<SendOutcome> {
  const refused: { record: SourceRecord; reason: string }[] = [];
  let pending = batch;
  for (let attempt = 0; attempt < 3 && pending.length > 0; attempt++) {
    const result = await client.enqueue(
      pending.map((record) => record.user!),
      pending === batch ? serialized : undefined,
    );
    if (result.ok) {
      return { queued: pending.map((record, i) => ({ record, userId: result.userIds[i] })), refused, allImported: result.allImported };
    }
    if ('tooLarge' in result) {
      const parts = await enqueueInHalves(client, pending);
      return { ...parts, refused: [...refused, ...parts.refused] };
    }
    if ('serverError' in result) {
      const parts = await isolateServerError(client, pending, result.serverError);
      return { ...parts, refused: [...refused, ...parts.refused] };
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
  if (users.length === 1) {
    return { queued: [], refused: [{ record: users[0], reason: `the core failed on this user (500: ${message})` }], allImported: true };
  }
  const middle = Math.ceil(users.length / 2);
  const halves = [users.slice(0, middle), users.slice(middle)];
  const answers: EnqueueResult[] = [];
  for (const half of halves) answers.push(await client.enqueue(half.map((record) => record.user!)));
  const failures = answers.map((answer) => (!answer.ok && 'serverError' in answer ? answer.serverError : undefined));
  if (failures.every((failure) => failure !== undefined)) {
    throw new CliError(`the core failed on a batch and on both its halves (500: ${message}): not one user's doing`);
  }
  const parts = [];
  for (const [i, half] of halves.entries()) {
    const failure = failures[i];
    parts.push(failure !== undefined ? await isolateServerError(client, half, failure) : await settleHalf(client, half, answers[i]));
  }
  return {
    queued: parts.flatMap((part) => part.queued),
    refused: parts.flatMap((part) => part.refused),
    allImported: parts.every((part) => part.allImported),
  };
}

/** What an answer already received for some users means, as sendUsers would read it. */
async function settleHalf(client: CoreClient, users: SourceRecord[], result: EnqueueResult): Promise<SendOutcome> {
  if (result.ok)
    return { queued: users.map((record, i) => ({ record, userId: result.userIds[i] })), refused: [], allImported: result.allImported };
  return sendUsers(client, users, undefined);
}

/** A request the core found too large goes again as two halves; a single user too large for it is refused alone. */
async function enqueueInHalves(client: CoreClient, users: SourceRecord[]): Promise<SendOutcome> {
  if (users.length === 1) {
    const reason = 'larger than the core takes in one request (its bulk_import_body_limit_bytes): not sent';
    return { queued: [], refused: [{ record: users[0], reason }], allImported: true };
  }
  const middle = Math.ceil(users.length / 2);
  const first = await sendUsers(client, users.slice(0, middle), undefined);
  const second = await sendUsers(client, users.slice(middle), undefined);
  return {
    queued: [...first.queued, ...second.queued],
    refused: [...first.refused, ...second.refused],
    allImported: first.allImported && second.allImported,
  };
}
