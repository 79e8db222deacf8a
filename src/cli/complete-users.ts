import type { SourceRecord } from './bulk-user.js';
import { CliError } from './cli-error.js';
import { RouteMissingError, type CompletionAnswer, type CoreClient } from './core-client.js';
import type { Results } from './results.js';

/** A user of a batch that the core holds under its old id without all the record carries. */
export interface ToComplete {
  record: SourceRecord;
  /** The core's id of the user. */
  userId: string;
  /** What the lookup showed it lacks, in plain words. */
  missing: string[];
}

/**
 * Sends the users an earlier run imported that lack something their record carries to POST
 * /bulk-import/users/complete, and answers how to settle each from the core's answer: completed (listed with
 * what was added; never in `created`, so undo leaves them), unchanged (already there), a conflict, or refused by
 * the core's validation (the others are sent again without it). A core without the route leaves each a conflict
 * saying what it lacks.
 */
export async function completeUsers(client: CoreClient, results: Results, users: ToComplete[]): Promise<Map<SourceRecord, () => void>> {
  const outcomes = new Map<SourceRecord, () => void>();
  let pending = users;
  for (let attempt = 0; attempt < 3 && pending.length > 0; attempt++) {
    let answer;
    try {
      answer = await client.complete(pending.map(({ record }) => record.user!));
    } catch (error) {
      if (!(error instanceof RouteMissingError)) throw error;
      for (const { record, missing } of pending) {
        const reason = `the core holds this user without ${missing.join(', ')}, and has no POST /bulk-import/users/complete to add it`;
        outcomes.set(record, () => results.add({ user: record.key, record: record.index + 1, stage: 'conflict', reason }));
      }
      return outcomes;
    }
    if (answer.ok) {
      pending.forEach((entry, i) => outcomes.set(entry.record, settle(results, entry, answer.answers[i])));
      return outcomes;
    }
    const errors = new Map(answer.invalid.map((entry) => [entry.index, entry.errors]));
    if (errors.size === 0) break;
    pending.forEach(({ record }, position) => {
      const reasons = errors.get(position);
      if (reasons === undefined) return;
      const reason = reasons.join('; ');
      outcomes.set(record, () => results.add({ user: record.key, record: record.index + 1, stage: 'validation', reason }));
    });
    pending = pending.filter((_, position) => !errors.has(position));
  }
  if (pending.length > 0) throw new CliError('the core kept refusing users to complete without saying which are wrong');
  return outcomes;
}

function settle(results: Results, { record }: ToComplete, answer: CompletionAnswer): () => void {
  const number = record.index + 1;
  switch (answer.status) {
    case 'COMPLETED':
      return () => results.noteCompleted({ user: record.key, record: number, userId: answer.userId, added: answer.added });
    case 'UNCHANGED':
      return () => results.alreadyImported++;
    case 'CONFLICT':
      return () => results.add({ user: record.key, record: number, stage: 'conflict', reason: `not completed: ${answer.reason}` });
    case 'NOT_FOUND':
      return () =>
        results.add({
          user: record.key,
          record: number,
          stage: 'conflict',
          reason: `not completed: no user of the core has old id ${record.user!.externalUserId} any more (removed while this run ran?)`,
        });
  }
}
