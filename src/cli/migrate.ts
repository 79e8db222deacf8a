import fs from 'node:fs';
import type { SourceRecord } from './bulk-user.js';
import { sendAll, liveCounts } from './bulk-send.js';
import { runCanaries } from './canary.js';
import { CliError } from './cli-error.js';
import { CoreClient } from './core-client.js';
import { assertDryRunSupported, dryRunBatch } from './dry-run.js';
import { ExistingUsers } from './existing-users.js';
import type { CliIo } from './io.js';
import type { MigrateOptions } from './options.js';
import { Progress } from './progress.js';
import { collectFailedRows, failedRows, waitForQueue } from './queue.js';
import { openSource, loadAuth0Hashes, type ReaderOptions } from './readers/index.js';
import { HashConfigError, readHashConfig, type HashConfig } from './readers/hash-config.js';
import { buildReport, formatSummary, writeReport } from './report.js';
import { Results } from './results.js';
import { loadState, newState, saveState, statePathFor, type MigrationState } from './state-file.js';

export const EXIT_INTERRUPTED = 130;

/** `identity-core migrate`: returns the exit code (0 all imported, 1 some users not imported). */
export async function runMigrate(options: MigrateOptions, io: CliIo): Promise<number> {
  const now = () => new Date(io.now?.() ?? Date.now());
  const startedAt = now();
  if (!fs.existsSync(options.file)) throw new CliError(`${options.file} does not exist`);
  const readerOptions: ReaderOptions = {
    format: options.format,
    hashConfig: options.hashConfigPath === undefined ? undefined : hashConfigFrom(options.hashConfigPath),
    auth0Hashes: options.passwordHashesPath === undefined ? undefined : await loadAuth0Hashes(options.passwordHashesPath),
    includeDisabled: options.includeDisabled,
    providerOverrides: options.providerOverrides,
  };
  const open = () => openSource(options.source, options.file, readerOptions);
  const client = new CoreClient({ baseUrl: options.coreUrl, apiKey: options.apiKey, attempts: options.retries + 1, signal: io.signal });
  await client.checkConnection();

  const results = new Results();
  const progress = new Progress(io);
  const existing = new ExistingUsers(client);
  const log = (line: string) => {
    progress.finishLine();
    io.stderr.write(`${line}\n`);
  };
  const canary = (dryRun: boolean) =>
    runCanaries({ client, checks: options.checks, open, hashConfig: readerOptions.hashConfig, dryRun, log });
  const finish = (reportPath: string | undefined) => {
    progress.finishLine();
    const report = buildReport(results, { ...options, startedAt, finishedAt: now() });
    if (reportPath !== undefined) writeReport(reportPath, report);
    io.stdout.write(formatSummary(report, reportPath));
    return results.failures + results.stillQueued > 0 ? 1 : 0;
  };

  if (options.dryRun) {
    await assertDryRunSupported(client);
    if (options.checks.length > 0) results.canary.push(...(await canary(true)).outcomes);
    await dryRunAll(client, existing, open(), options.batchSize, results, progress);
    return finish(options.reportPath);
  }

  const statePath = statePathFor(options.file);
  if (options.restart) fs.rmSync(statePath, { force: true });
  const state = loadState(statePath, options.source, options.file) ?? (await startState(client, options, now(), log));
  saveState(statePath, state, now());
  for (const rejection of state.rejected) {
    results.add({ user: rejection.key, record: rejection.record, stage: 'validation', reason: rejection.reason });
  }
  if (state.recordsDone > 0) log(`resuming: ${state.recordsDone} users of the export were handled by an earlier run`);

  if (options.checks.length > 0) {
    const { emails, outcomes } = await canary(false);
    results.canary.push(...outcomes);
    state.canaryImported = [...new Set([...state.canaryImported, ...emails])];
    saveState(statePath, state, now());
  }

  const source = open();
  const sent = await sendAll({
    client, source, state, statePath, results, progress, batchSize: options.batchSize, maxQueued: options.maxQueued,
    pollIntervalMs: options.pollIntervalMs, signal: io.signal, now,
  });
  if (!sent) {
    log(`interrupted: ${state.recordsDone} users handled so far; run the same command again to continue`);
    return EXIT_INTERRUPTED;
  }

  progress.start('importing');
  const nowMs = () => now().getTime();
  let failedInQueue = 0;
  results.stillQueued = await waitForQueue(client, {
    pollIntervalMs: options.pollIntervalMs,
    stallTimeoutMs: options.waitTimeoutMs,
    signal: io.signal,
    now: nowMs,
    onCounts: (counts) => {
      failedInQueue = counts.failed - state.preexistingFailedIds.length;
      const live = liveCounts({ state, results, source }, counts);
      const fraction = state.usersQueued === 0 ? 1 : (state.usersQueued - counts.pending) / state.usersQueued;
      progress.update({ ...live, fraction }, counts.pending === 0);
    },
  });
  if (io.signal?.aborted) {
    log('interrupted while the core was importing: run the same command again to collect the results');
    return EXIT_INTERRUPTED;
  }
  if (results.stillQueued > 0) {
    log(`the core's queue made no progress for ${options.waitTimeoutMs / 1000}s: run the same command again later to collect the results`);
  }
  if (failedInQueue > 1000) log(`looking at the ${failedInQueue} users the core could not import...`);
  await collectFailedRows(client, existing, results, new Set(state.preexistingFailedIds));
  return finish(options.reportPath ?? `${options.file}.migrate-report.json`);
}

function hashConfigFrom(path: string): HashConfig {
  try {
    return readHashConfig(path);
  } catch (error) {
    if (error instanceof HashConfigError) throw new CliError(`${path}: ${error.message}`);
    throw new CliError(`cannot read ${path}`);
  }
}

// FAILED rows already in the queue belong to earlier imports; remember them so the report holds only ours.
async function startState(client: CoreClient, options: MigrateOptions, now: Date, log: (line: string) => void): Promise<MigrationState> {
  const state = newState(options.source, options.file, now);
  for await (const page of failedRows(client)) state.preexistingFailedIds.push(...page.map((row) => row.id));
  if (state.preexistingFailedIds.length > 0) {
    log(`note: the core's queue already holds ${state.preexistingFailedIds.length} FAILED rows from earlier imports; they are left out of this report`);
  }
  return state;
}

async function dryRunAll(
  client: CoreClient,
  existing: ExistingUsers,
  source: ReturnType<typeof openSource>,
  batchSize: number,
  results: Results,
  progress: Progress,
): Promise<void> {
  progress.start('checking');
  let batch: SourceRecord[] = [];
  const show = (force = false) => progress.update({
    read: results.read, sent: 0, imported: results.wouldImport, failed: results.failures,
    fraction: source.totalBytes > 0 ? source.bytesRead() / source.totalBytes : undefined,
  }, force);
  for await (const record of source.records) {
    results.noteRecord(record);
    if (record.user) batch.push(record);
    if (batch.length >= batchSize) {
      await dryRunBatch(client, existing, batch, results);
      batch = [];
    }
    show();
  }
  await dryRunBatch(client, existing, batch, results);
  show(true);
}
