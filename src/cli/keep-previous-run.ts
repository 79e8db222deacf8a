import fs from 'node:fs';
import type { CoreClient } from './core-client.js';
import { ReportReader } from './report-reader.js';
import { usersToUndo } from './undo-list.js';

/**
 * A fresh run never destroys the undo plan of the run before it. Its report is kept as
 * `<report>.previous-<time>.json`; a run killed before it wrote its end has an empty `created` list and its side files
 * (ids answered, intents, state with its canaries) are its plan, so they are kept beside it under the same suffix and
 * the kept report points at them. Its users sent without a recorded answer are resolved now, before this run creates
 * anyone (whoever holds their accounts now was created by that run), and kept as ids: undoing that run later never
 * takes a user this run creates. Returns the kept report's path, or undefined when there was none.
 */
export async function keepPreviousRun(reportPath: string, stamp: string, client: CoreClient): Promise<string | undefined> {
  if (!fs.existsSync(reportPath)) return undefined;
  const kept = `${reportPath.replace(/\.json$/, '')}.previous-${stamp}.json`;
  let killed: ReportReader | undefined;
  try {
    const report = new ReportReader(reportPath);
    if (report.running && report.progress !== undefined) killed = report;
  } catch {
    // Not a report of a run (a dry run's, say): kept as it is.
  }
  if (killed === undefined) {
    fs.renameSync(reportPath, kept);
    return kept;
  }
  const files = { ...killed.progress! };
  for (const name of ['stateFile', 'sentLog', 'intentLog'] as const) {
    const moved = `${files[name]}.previous-${stamp}`;
    if (fs.existsSync(files[name])) fs.renameSync(files[name], moved);
    files[name] = moved;
  }
  // A killed run's report holds no list of users: it is small, and rewritten whole.
  const report = JSON.parse(fs.readFileSync(reportPath, 'utf8')) as Record<string, unknown>;
  fs.writeFileSync(kept, `${JSON.stringify({ ...report, progress: files }, null, 2)}\n`);
  fs.rmSync(reportPath);
  await resolveIntents(kept, files, client);
  return kept;
}

/** Rewrites the kept sent log with every user the killed run created, by id, and drops its intents. */
async function resolveIntents(kept: string, files: { sentLog: string; intentLog: string }, client: CoreClient): Promise<void> {
  const resolved = `${files.sentLog}.resolving`;
  const descriptor = fs.openSync(resolved, 'w');
  try {
    for await (const users of usersToUndo(new ReportReader(kept), client, 2000)) {
      // Canaries (record 0) stay in the kept state file, where undo finds them.
      const lines = users.filter((user) => user.record > 0).map((user) => `${user.record}\t${user.userId}\n`);
      fs.writeSync(descriptor, lines.join(''));
    }
  } finally {
    fs.closeSync(descriptor);
  }
  fs.renameSync(resolved, files.sentLog);
  fs.rmSync(files.intentLog, { force: true });
}
