import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import { describeError } from '../db/pg-errors.js';
import type { ServiceDependencies } from '../service-deps.js';
import { processBatch } from './process-batch.js';
import type { StatisticsRefresher } from './statistics-refresh.js';

const maxAttempts = 3;

export interface WorkerOptions {
  // Batch loops run at once in this process (each on its own connection and transaction).
  parallelism: number;
  // Sweep interval: also picks up rows whose processor died (contract §10.5).
  intervalMs: number;
  // Pause before retrying a batch that rolled back (a deadlock with another core, a lost connection).
  retryDelayMs: number;
  log: Logger;
  // Resolves when work that batches leave behind them (a statistics refresh) is done.
  settled?: () => Promise<void>;
}

// Runs processBatch in `parallelism` loops until nothing is left to claim. Once started, a run starts on kick() (after
// an enqueue) and on every sweep; a kick during a run makes it look once more when it ends, so no enqueued row waits
// for the next sweep. Before start() (or with `bulk_import_worker` off) only processUntilEmpty() runs batches.
export class BulkImportWorker {
  private timer: NodeJS.Timeout | undefined;
  private run: Promise<void> | undefined;
  private again = false;
  private started = false;
  private stopped = false;
  private lastError: unknown;
  private wakeSleepers: (() => void)[] = [];

  constructor(
    private readonly processBatch: () => Promise<number>,
    private readonly options: WorkerOptions,
  ) {}

  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.timer = setInterval(() => this.kick(), this.options.intervalMs);
    this.timer.unref();
    this.kick();
  }

  kick(force = false): void {
    if (this.stopped || (!this.started && !force)) return;
    if (this.run) {
      this.again = true;
      return;
    }
    this.run = this.drain().finally(() => {
      this.run = undefined;
      if (this.again) {
        this.again = false;
        this.kick(true);
      }
    });
  }

  // Resolves once a run that started after this call found nothing left to claim; rethrows what made it stop early.
  async processUntilEmpty(): Promise<void> {
    this.lastError = undefined;
    this.kick(true);
    while (this.run) await this.run;
    if (this.lastError !== undefined) throw this.lastError;
    await this.options.settled?.();
  }

  // Resolves when no run is in progress (it starts none).
  async idle(): Promise<void> {
    while (this.run) await this.run;
    await this.options.settled?.();
  }

  // Stops sweeping and waits for the batches in flight to commit or roll back.
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    for (const wake of this.wakeSleepers.splice(0)) wake();
    await this.idle();
  }

  private async drain(): Promise<void> {
    await Promise.all(Array.from({ length: this.options.parallelism }, () => this.loop()));
  }

  // A batch that rolled back is retried a few times (its rows are still queued); then the loop leaves them to the
  // next kick or sweep, so a database outage does not spin.
  private async loop(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      try {
        if ((await this.processBatch()) === 0) return;
        failures = 0;
      } catch (error) {
        this.options.log.error({ error: describeError(error) }, 'bulk import: batch rolled back; its rows stay queued');
        if (++failures >= maxAttempts) {
          this.lastError = error;
          return;
        }
        await this.sleep(this.options.retryDelayMs);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakeSleepers = this.wakeSleepers.filter((sleeper) => sleeper !== wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakeSleepers.push(wake);
    });
  }
}

// Leave at least one connection of the pool to the other routes.
export function importParallelism(config: Readonly<Config>): number {
  return Math.max(1, Math.min(config.bulk_migration_parallelism, config.postgresql_connection_pool_size - 1));
}

// The worker that empties the queue of this core's database; the composition root starts it when the app is ready.
export function createBulkImportWorker(deps: ServiceDependencies, statistics: StatisticsRefresher): BulkImportWorker {
  const { config, pool, hasher, clock, log, totpSecrets } = deps;
  const batch = {
    pool,
    hasher,
    totpSecrets,
    clock,
    log,
    batchSize: config.bulk_migration_batch_size,
    onFinished: (imported: number, failed: number) => deps.metrics?.bulkBatchFinished(imported, failed),
  };
  const processAndNote = async () => {
    const claimed = await processBatch(batch);
    statistics.noteImported(claimed);
    return claimed;
  };
  return new BulkImportWorker(processAndNote, {
    parallelism: importParallelism(config),
    intervalMs: config.bulk_import_interval_seconds * 1000,
    retryDelayMs: config.bulk_migration_sleep_between_rounds_in_batch_ms,
    log,
    settled: () => statistics.idle(),
  });
}
