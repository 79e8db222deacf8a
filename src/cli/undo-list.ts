import fs from 'node:fs';
import { addLookupKeys, CoreIndex, emptyLookup, presenceOf } from './account-keys.js';
import type { BulkImportUser } from './bulk-user.js';
import type { CoreClient } from './core-client.js';
import type { RunFiles } from './report.js';
import type { ReportReader } from './report-reader.js';
import type { CreatedUser } from './results.js';
import { SentLogReader, type IntendedUser } from './sent-log.js';

// Intents resolved per lookup: each holds a few keys, and a lookup takes 10,000 of each kind.
const INTENTS_PER_LOOKUP = 2000;

/**
 * The users a run created, `size` at a time: its report's list, or, for a run killed before it wrote its end,
 * what its side files say it sent. Ids the core answered are its own; a user sent without a recorded answer is
 * looked up by its accounts, which no user of the core held when it was sent.
 */
export async function* usersToUndo(report: ReportReader, client: CoreClient, size: number): AsyncGenerator<CreatedUser[]> {
  if (!report.running) {
    yield* report.created(size);
    return;
  }
  const files = report.progress!;
  const canaries = canariesOf(files);
  if (canaries.length > 0) yield canaries;
  const reader = new SentLogReader(files.sentLog, files.intentLog);
  try {
    const answered = new Set<number>();
    const chunk: CreatedUser[] = [];
    for (const { record, userId } of reader.idLines()) {
      answered.add(record);
      chunk.push({ user: `record ${record}`, record, userId });
      if (chunk.length >= size) yield chunk.splice(0);
    }
    if (chunk.length > 0) yield chunk.splice(0);
    const unanswered: { record: number; intent: IntendedUser }[] = [];
    for (const { record, intent } of reader.intentLines()) {
      if (intent === undefined || answered.has(record)) continue;
      // A record sent again by a later invocation is resolved once.
      answered.add(record);
      unanswered.push({ record, intent });
      if (unanswered.length >= INTENTS_PER_LOOKUP) yield await heldNow(client, unanswered.splice(0));
    }
    if (unanswered.length > 0) yield await heldNow(client, unanswered);
  } finally {
    reader.close();
  }
}

/** The users the core holds whole under the accounts of these intents. */
async function heldNow(client: CoreClient, intents: { record: number; intent: IntendedUser }[]): Promise<CreatedUser[]> {
  const body = emptyLookup();
  for (const { intent } of intents) addLookupKeys(body, intent.account as BulkImportUser);
  const index = new CoreIndex(await client.lookup(body));
  const held: CreatedUser[] = [];
  for (const { record, intent } of intents) {
    const presence = presenceOf(intent.account as BulkImportUser, index);
    if (presence.kind === 'present') held.push({ user: intent.user, record, userId: presence.userId });
  }
  return held;
}

function canariesOf(files: RunFiles): CreatedUser[] {
  const state = stateOf(files);
  const canaries = Array.isArray(state?.canaryCreated) ? (state.canaryCreated as { email: string; userId: string }[]) : [];
  return canaries.map((canary) => ({ user: canary.email, record: 0, userId: canary.userId }));
}

function stateOf(files: RunFiles): Record<string, unknown> | undefined {
  try {
    const state = JSON.parse(fs.readFileSync(files.stateFile, 'utf8')) as Record<string, unknown>;
    return state.startedAt === files.runStartedAt ? state : undefined;
  } catch {
    return undefined;
  }
}

/**
 * After an undo, the run's saved progress would make the same command resume (and call the removed users lost):
 * its files go, so that the command imports again. Files of a later run of the same export are left alone.
 */
export function forgetRun(files: RunFiles | undefined): void {
  if (files === undefined || stateOf(files) === undefined) return;
  for (const file of [files.stateFile, files.sentLog, files.intentLog, files.createdLog]) fs.rmSync(file, { force: true });
}
