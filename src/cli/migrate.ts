import fs from 'node:fs';
import path from 'node:path';
import { runCanaries } from './canary.js';
import { CliError } from './cli-error.js';
import { CoreClient } from './core-client.js';
import { CreatedLog } from './created-log.js';
import { keepPreviousRun } from './keep-previous-run.js';
import { checkCoreAgainstHashConfig } from './hash-self-check.js';
import { assertDryRunSupported, dryRunAll } from './dry-run.js';
import type { CliIo } from './io.js';
import { migrateAll } from './migrate-pass.js';
import { PASSKEY_SOURCES, type MigrateOptions } from './options.js';
import { loadAuth0AuthenticationMethods } from './readers/auth0-passkeys.js';
import { refuseUnconfiguredRpIds } from './passkey-rp-check.js';
import { Progress } from './progress.js';
import { waitForQueue } from './queue.js';
import { openSource, loadAuth0Hashes, type ReaderOptions } from './readers/index.js';
import { RoleDeclarer, withoutRoles } from './declare-roles.js';
import { loadMapping } from './mapping.js';
import { loadOrganizationPlan } from './organizations/load-plan.js';
import { tenantIdFrom } from './organizations/tenant-id.js';
import { withOrganizations } from './organizations/memberships.js';
import { createTenants, describeTenants, type ReportedTenant } from './organizations/tenants.js';
import { loadClerkApi } from './readers/clerk.js';
import { loadSupabaseTables } from './readers/supabase.js';
import { HashConfigError, readHashConfig, type HashConfig } from './readers/hash-config.js';
import { buildReport, formatSummary, writeReport, type RunFiles } from './report.js';
import { CreatedInMemory, Results } from './results.js';
import { runIdentity, type RunIdentity } from './run-identity.js';
import { NOTHING_SENT_BEFORE, SentLog } from './sent-log.js';
import { loadState, newState, saveState, statePathFor, type MigrationState } from './state-file.js';
import { settleUnsettled, tallyFromState, type Unsettled } from './tally.js';

export const EXIT_INTERRUPTED = 130;

// Removing rows takes at most this many ids per request (contract §10.4).
const REMOVE_CHUNK = 500;

/** `identity-core migrate`: returns the exit code (0 all imported, 1 some users not imported, 130 interrupted). */
export async function runMigrate(options: MigrateOptions, io: CliIo): Promise<number> {
  const now = () => new Date(io.now?.() ?? Date.now());
  const startedAt = now();
  if (!fs.existsSync(options.file)) throw new CliError(`${options.file} does not exist`);
  const warnings = new Set<string>();
  const readerOptions: ReaderOptions = {
    warn: (message) => {
      if (warnings.has(message)) return;
      warnings.add(message);
      io.stderr.write(`${message}\n`);
    },
    format: options.format,
    hashConfig: options.hashConfigPath === undefined ? undefined : hashConfigFrom(options.hashConfigPath, options.tenant),
    auth0Hashes: options.passwordHashesPath === undefined ? undefined : await loadAuth0Hashes(options.passwordHashesPath),
    includeDisabled: options.includeDisabled,
    providerOverrides: options.providerOverrides,
    lazySource: options.lazySource,
    usersFiles: options.usersFiles,
    ...(await carryOptions(options, startedAt)),
    signal: io.signal,
  };
  // Organizations become tenants: their ids are checked (two organizations on one id stop the run) before anything is sent.
  const plan = await loadOrganizationPlan(options, readerOptions.carry?.mapping, readerOptions.clerkApi);
  let tenants: ReportedTenant[] | undefined;
  const client = new CoreClient({ baseUrl: options.coreUrl, apiKey: options.apiKey, attempts: options.retries + 1, signal: io.signal });
  const roles = new RoleDeclarer(client, readerOptions.carry?.mapping);
  // A pass that sends users declares their roles first; a dry run sends none; a tally after a lost core asks nothing.
  const open = (purpose: 'send' | 'tally' = 'send') => {
    const read = openSource(options.source, options.file, readerOptions);
    const opened = plan === undefined ? read : withOrganizations(read, plan, readerOptions.carry?.mapping, options.dryRun);
    if (purpose === 'tally') return opened;
    return options.dryRun ? withoutRoles(opened) : roles.declaring(opened);
  };
  // Before a single user is sent, in a dry run too: the core must verify hashes made with the export's signer key and
  // take its parameters. The core is first asked, the self-check run and the export's digest taken all at once; a
  // core that does not answer is reported as that, whatever else failed with it.
  const connected = client.checkConnection();
  const selfCheck = readerOptions.hashConfig === undefined ? undefined : checkCoreAgainstHashConfig(client, readerOptions.hashConfig);
  const identified = runIdentity(client, options, io.signal);
  const statePath = statePathFor(options.file);
  // Saved progress holds only for the same core, export and options, so a run that may resume takes the export's
  // digest first. A fresh run (nothing saved, or --restart) reads its first batches while the digest is taken, and
  // writes nothing before it is (prepare, below).
  const fresh = !options.dryRun && (options.restart || !fs.existsSync(statePath));
  // Taken before the run writes anything: a fresh run into a core without users has nobody to look up there.
  const usersBefore = fresh ? client.countUsers() : undefined;
  for (const step of [connected, selfCheck, identified, usersBefore]) step?.catch(() => {});
  await connected;
  // Passkeys for an RP ID the core does not import are left behind with the reason, not sent to cost the user.
  const passkeyContext = readerOptions.carry?.passkeys;
  if (passkeyContext !== undefined) passkeyContext.coreRpIds = await client.webauthnRpIds();
  // A run that would leave passkeys behind only for want of the core's setting is refused, unless the operator says so.
  const coreRpIds = passkeyContext?.coreRpIds;
  if (coreRpIds !== undefined && !options.leaveUnconfiguredPasskeys) {
    await refuseUnconfiguredRpIds(openSource(options.source, options.file, readerOptions), coreRpIds);
  }
  let identity: RunIdentity;
  if (!fresh) {
    try {
      identity = await identified;
    } catch (error) {
      // Interrupted while the export's digest was taken: nothing was read or sent yet.
      if (io.signal?.aborted) {
        await selfCheck?.catch(() => {});
        return exitCodeFor(io.signal.reason);
      }
      throw error;
    }
  }

  const createdLog = new CreatedLog(CreatedLog.pathFor(options.file));
  const results = new Results(options.dryRun ? undefined : createdLog);
  if (passkeyContext !== undefined) results.coreRpIds = passkeyContext.coreRpIds;
  const progress = new Progress(io);
  const log = (line: string) => {
    progress.finishLine();
    io.stderr.write(`${line}\n`);
  };
  const canary = (dryRun: boolean) =>
    runCanaries({ client, checks: options.checks, open, hashConfig: readerOptions.hashConfig, dryRun, log });
  let runFiles: RunFiles | undefined = undefined;
  // An export these options cannot read (another source's file, a missing --hash-config) stops at its first record:
  // the one line saying why is the whole answer, with no table of zeros before it.
  const stoppedBeforeReading = (error: unknown, recordsDoneBefore = 0) =>
    error instanceof CliError && !io.signal?.aborted && results.read === 0 && recordsDoneBefore === 0 && results.canary.length === 0;
  const finish = (reportPath: string | undefined, partial: boolean, settled = results, unsettledBecause?: string) => {
    progress.finishLine();
    const context = {
      ...options,
      coreId: identity.coreId,
      partial,
      startedAt,
      finishedAt: now(),
      unsettledBecause,
      progress: runFiles,
      tenants,
    };
    const report = buildReport(settled, context);
    if (reportPath !== undefined) writeReport(reportPath, report, settled.created.lineChunks());
    io.stdout.write(formatSummary(report, reportPath));
    return settled.failed + settled.invalid + settled.stillQueued > 0 ? 1 : 0;
  };

  if (options.dryRun) {
    if (selfCheck !== undefined) log(`hash self-check: ${await selfCheck}`);
    await assertDryRunSupported(client);
    if (plan !== undefined) {
      tenants = await describeTenants(client, plan.tenants);
      log(`tenants: ${tenants.map((tenant) => `${tenant.tenantId}${tenant.existsInCore ? '' : ' (new)'}`).join(', ')}`);
    }
    if (options.checks.length > 0) results.canary.push(...(await canary(true)).outcomes);
    try {
      await dryRunAll(client, open(), { batchSize: options.batchSize, maxInvalid: options.maxInvalid }, results, progress);
    } catch (error) {
      // Stopped by --max-invalid, an unreadable export or a signal: what was checked so far is still reported.
      if (stoppedBeforeReading(error)) throw error;
      finish(options.reportPath, true);
      if (io.signal?.aborted) return exitCodeFor(io.signal.reason);
      throw error;
    }
    return finish(options.reportPath, false);
  }

  const sentLog = new SentLog(SentLog.pathFor(options.file));
  const reportPath = options.reportPath ?? `${options.file}.migrate-report.json`;
  const loaded = fresh ? {} : loadState(statePath, identity!);
  if (loaded.staleBecause !== undefined) {
    log(
      `${statePath} holds progress made for ${loaded.staleBecause}: starting a fresh run (users the core already holds are recognised and not sent again)`,
    );
  }
  const state = loaded.state ?? newState(options.source, options.file, now());
  // Before anything is written, the self-check passes and the run's identity is known; before anything is sent, the
  // run's files are written (from them undo finds everything the run sent, however it ends). Meanwhile the first
  // batch is read and looked up.
  const prepare = async () => {
    if (selfCheck !== undefined) log(`hash self-check: ${await selfCheck}`);
    if (fresh) identity = await identified;
    state.identity = identity;
    if (!loaded.state) {
      const kept = await keepPreviousRun(reportPath, now().toISOString().replace(/[:.]/g, '-'), client);
      if (kept !== undefined) log(`the report of the previous run is kept as ${kept}: undo that run from it`);
      fs.rmSync(statePath, { force: true });
      sentLog.clear();
    }
    saveState(statePath, state, now());
    runFiles = {
      runStartedAt: state.startedAt,
      stateFile: path.resolve(statePath),
      sentLog: path.resolve(sentLog.path),
      intentLog: path.resolve(sentLog.intentPath),
      createdLog: path.resolve(createdLog.path),
    };
    const running = { ...options, coreId: identity.coreId, partial: true, running: true, startedAt, finishedAt: now(), progress: runFiles };
    writeReport(reportPath, buildReport(new Results(), running), []);
    if (state.recordsDone > 0) log(`resuming: ${state.recordsDone} users of the export were handled by an earlier invocation of this run`);
    if (plan !== undefined) {
      tenants = await createTenants(client, plan.tenants, state.tenantsCreated ?? []);
      const created = tenants.filter((tenant) => tenant.createdByRun).map((tenant) => tenant.tenantId);
      state.tenantsCreated = created;
      saveState(statePath, state, now());
      log(`tenants: ${tenants.length} (${created.length} created by this run)`);
      // A run killed from here on leaves a report that names its tenants, for undo.
      writeReport(reportPath, buildReport(new Results(), { ...running, tenants }), []);
    }
    if (readerOptions.carry?.mapping !== undefined) {
      const created = await roles.declareMapped();
      log(`roles: ${readerOptions.carry.mapping.roles.size} declared by the mapping (${created} new to the core)`);
    }
    if (options.checks.length > 0) {
      const { created, outcomes } = await canary(false);
      results.canary.push(...outcomes);
      state.canaryCreated.push(...created.filter((user) => !state.canaryCreated.some((known) => known.email === user.email)));
      saveState(statePath, state, now());
    }
    // Every user is settled again by this invocation, so its list of created users starts empty.
    createdLog.clear();
  };
  // The pass reads canary users' ids and mapped roles from what this makes: with either, it starts afterwards.
  const overlaps = readerOptions.carry?.mapping === undefined && options.checks.length === 0 && plan === undefined;
  if (!overlaps) await prepare();
  const prepared = overlaps ? prepare() : Promise.resolve();
  prepared.catch(() => {});
  // What earlier invocations of this run sent. A fresh run reads none: its log is cleared before it sends anything.
  const sentBefore = loaded.state ? sentLog.reader() : NOTHING_SENT_BEFORE;
  const coreHeldNoUsers = (await usersBefore?.catch(() => undefined)) === 0;
  const queuedBefore = state.usersQueued;
  const unsettled: Unsettled[] = [];
  let stillPending = 0;
  let failure: unknown;
  try {
    let finished: boolean;
    try {
      finished = await migrateAll({
        client,
        source: open(),
        state,
        statePath,
        sentLog,
        sentBefore,
        results,
        unsettled,
        progress,
        batchSize: options.batchSize,
        maxQueued: options.maxQueued,
        maxInvalid: options.maxInvalid,
        pollIntervalMs: options.pollIntervalMs,
        signal: io.signal,
        now,
        ready: prepared,
        coreHeldNoUsers,
      });
    } finally {
      sentBefore.close();
    }
    await prepared;
    // A core that queues is waited for, before asking what became of the users it had not imported when their batch
    // was settled; one that imports at once and settled every user leaves nothing to wait for.
    const nothingToWaitFor = client.importsAtOnce && unsettled.length === 0;
    if (finished && !nothingToWaitFor)
      stillPending = await waitUntilImported(client, options, io, progress, state, state.usersQueued - queuedBefore);
  } catch (error) {
    // A failed self-check (or run files that cannot be written) stops the run before anything was sent or written, and
    // so does an interruption while the export's digest was taken.
    try {
      await prepared;
    } catch (reason) {
      if (io.signal?.aborted) return exitCodeFor(io.signal.reason);
      throw reason;
    }
    // A lost core, a file that turns unreadable, a bug: the users handled so far are still reported.
    failure = error;
    if (stoppedBeforeReading(error, state.recordsDone)) {
      // Nothing was read, so nothing was sent: the run leaves no files, and the next one, with other options, starts
      // afresh without a word about this one.
      for (const file of [reportPath, statePath]) fs.rmSync(file, { force: true });
      sentLog.clear();
      createdLog.clear();
      throw error;
    }
    log(`stopped by an error: ${error instanceof Error ? error.message : String(error)}`);
  }
  const interrupted = failure !== undefined || io.signal?.aborted === true;
  if (interrupted)
    log(`interrupted: ${state.recordsDone} users handled so far; the report below is partial; run the same command again to continue`);
  else if (stillPending > 0) {
    log(`the core's queue made no progress for ${options.waitTimeoutMs / 1000}s: run the same command again later to collect the results`);
  }

  progress.start('checking the core');
  // After a failure the core may be gone: ask it once, without the retries' backoff.
  const finalClient = failure === undefined ? client : new CoreClient({ baseUrl: options.coreUrl, apiKey: options.apiKey, attempts: 1 });
  let code: number;
  try {
    // Every user settled so far was settled from the core's answer about it in this invocation. After an error the
    // core must still answer for that to stand; a core that is gone leaves the report to the state file below.
    if (failure !== undefined) await finalClient.checkConnection();
    const duplicateRows = await settleUnsettled(finalClient, unsettled, results);
    for (let start = 0; start < duplicateRows.length; start += REMOVE_CHUNK) {
      await finalClient.removeQueueRows(duplicateRows.slice(start, start + REMOVE_CHUNK));
    }
    code = finish(reportPath, interrupted || stillPending > 0);
  } catch (error) {
    if (failure === undefined && !io.signal?.aborted) throw error;
    const why = `the core could not be asked at the end (${error instanceof Error ? error.message : String(error)})`;
    log(`${why}: the report counts every user it could not settle as still queued`);
    const local = new Results(new CreatedInMemory());
    local.canary.push(...results.canary);
    const sentBefore = sentLog.reader();
    try {
      await tallyFromState({ source: open('tally'), state, sentBefore, results: local });
    } finally {
      sentBefore.close();
    }
    code = finish(reportPath, true, local, why);
  }
  createdLog.clear();
  if (failure !== undefined) throw failure;
  return interrupted ? exitCodeFor(io.signal?.reason) : code;
}

// 128 + the signal's number, as shells report a process ended by it.
function exitCodeFor(reason: unknown): number {
  if (reason === 'SIGTERM') return 143;
  if (reason === 'SIGHUP') return 129;
  if (reason === 'error') return 1;
  return EXIT_INTERRUPTED;
}

/** Polls the core's queue until it is empty or stalls; returns how many rows are still pending. */
async function waitUntilImported(
  client: CoreClient,
  options: MigrateOptions,
  io: CliIo,
  progress: Progress,
  state: MigrationState,
  sentNow: number,
) {
  progress.start('importing');
  let done = 0;
  return waitForQueue(client, {
    pollIntervalMs: options.pollIntervalMs,
    stallTimeoutMs: options.waitTimeoutMs,
    signal: io.signal,
    now: () => io.now?.() ?? Date.now(),
    onCounts: (counts) => {
      // The queue may hold other imports' rows too: the count only ever moves forward, and never past what was sent.
      done = Math.min(sentNow, Math.max(done, sentNow - counts.pending));
      progress.update(
        {
          read: state.recordsDone,
          sent: state.usersQueued,
          notSent: state.recordsDone - state.usersQueued,
          // Users queued by earlier invocations of the run were processed before this one waited.
          processed: state.usersQueued - sentNow + done,
          fraction: sentNow === 0 ? 1 : done / sentNow,
        },
        counts.pending === 0,
      );
    },
  });
}

/** The mapping, the joined files of a source, and what marks carry: read before anything is sent. */
async function carryOptions(options: MigrateOptions, startedAt: Date): Promise<Partial<ReaderOptions>> {
  const mapping = options.mappingPath === undefined ? undefined : await loadMapping(options.mappingPath);
  return {
    carry: {
      ...(mapping !== undefined && { mapping }),
      source: options.source,
      markedAt: startedAt.getTime(),
      ...(PASSKEY_SOURCES.includes(options.source) && { passkeys: { ...(options.rpId !== undefined && { rpId: options.rpId }) } }),
    },
    ...(options.authenticationMethodsPath !== undefined && {
      auth0AuthenticationMethods: await loadAuth0AuthenticationMethods(options.authenticationMethodsPath),
    }),
    ...(options.clerkApiPath !== undefined && { clerkApi: await loadClerkApi(options.clerkApiPath) }),
    ...((options.identitiesPath !== undefined || options.mfaFactorsPath !== undefined || options.webauthnCredentialsPath !== undefined) && {
      supabaseTables: await loadSupabaseTables(options.identitiesPath, options.mfaFactorsPath, options.webauthnCredentialsPath),
    }),
  };
}

// Each Identity Platform tenant signs with a key of its own: a tenant's hashes name theirs, the tenant id.
function hashConfigFrom(path: string, tenant: string | undefined): HashConfig {
  const keyName = tenant === undefined ? undefined : tenantIdFrom(tenant);
  try {
    return { ...readHashConfig(path), ...(keyName !== undefined && { keyName }) };
  } catch (error) {
    if (error instanceof HashConfigError) throw new CliError(`${path}: ${error.message}`);
    throw new CliError(`cannot read ${path}`);
  }
}
