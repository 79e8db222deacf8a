import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type pg from 'pg';
import type { HashingObserver, QueueState, VerificationReport } from '../hashing/observer.js';
import { HASH_POOLS, type HashPool } from '../hashing/format.js';
import type { QueueStatus } from '../bulk-import/repository.js';

// Every metric of the core is defined here. Labels hold only bounded values: route templates (never URLs), a fixed
// set of methods, HTTP status codes, the ids of the hash formats, the hashing pools and outcomes.

export interface MetricSources {
  pool: pg.Pool;
  hashingQueues: () => Record<HashPool, QueueState>;
  // Bulk-import queue rows by status; read at scrape time (see BulkQueueCounts for the bound on its cost).
  bulkQueueCounts: () => Promise<Record<QueueStatus, number> | undefined>;
  // Per configured lazy-migration source (a bounded set, from the configuration).
  lazyPending: () => Promise<Map<string, number>>;
  lazyBreakers: () => Map<string, 'closed' | 'open' | 'half-open'>;
}

const knownMethods = new Set(['GET', 'POST', 'PUT', 'DELETE']);
const secondsBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const label = (id: string) => id.toLowerCase();

// Process metrics (CPU, memory, event loop, GC) describe the process, not an app: one set per process, so that
// building many apps in one process (tests) does not start a monitor per app.
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry, prefix: 'identity_core_' });
  }
  return processRegistry;
}

export class CoreMetrics implements HashingObserver {
  readonly registry = new Registry();
  readonly contentType = this.registry.contentType;

  private readonly httpRequests = new Counter({
    name: 'identity_core_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'],
    registers: [this.registry],
  });
  private readonly httpDuration = new Histogram({
    name: 'identity_core_http_request_duration_seconds',
    help: 'Time from receiving a request to answering it, by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'],
    buckets: secondsBuckets,
    registers: [this.registry],
  });
  private readonly verifications = new Counter({
    name: 'identity_core_password_verifications_total',
    help: 'Password verifications, by hash algorithm and outcome (match, no_match)',
    labelNames: ['algorithm', 'outcome'],
    registers: [this.registry],
  });
  private readonly verificationDuration = new Histogram({
    name: 'identity_core_password_verification_duration_seconds',
    help: 'Time one password verification computed (queue wait excluded), by hash algorithm and outcome',
    labelNames: ['algorithm', 'outcome'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  private readonly hashingWait = new Histogram({
    name: 'identity_core_hashing_queue_wait_seconds',
    help: 'Time a password verification waited for a slot of its hashing pool',
    labelNames: ['pool'],
    buckets: [0.001, ...secondsBuckets],
    registers: [this.registry],
  });
  private readonly hashingRejected = new Counter({
    name: 'identity_core_hashing_rejections_total',
    help: 'Password verifications refused with 503 because the hashing queue was full or the deadline passed',
    labelNames: ['pool'],
    registers: [this.registry],
  });
  private readonly bulkImported = new Counter({
    name: 'identity_core_bulk_import_users_total',
    help: 'Bulk-import users finished by this process (queue rows and importNow requests, as the migration command sends), by result (imported, failed)',
    labelNames: ['result'],
    registers: [this.registry],
  });

  private readonly lazyVerifications = new Counter({
    name: 'identity_core_lazy_verify_total',
    help: "Old-provider answers about pending users' passwords, by lazy-migration source and outcome",
    labelNames: ['source', 'outcome'],
    registers: [this.registry],
  });
  private readonly lazyVerifyDuration = new Histogram({
    name: 'identity_core_lazy_verify_duration_seconds',
    help: 'Time the old provider took to answer, by lazy-migration source',
    labelNames: ['source'],
    buckets: secondsBuckets,
    registers: [this.registry],
  });
  private readonly lazyMigrated = new Counter({
    name: 'identity_core_lazy_migrated_total',
    help: 'Pending users adopted at their first sign-in by this process, by lazy-migration source',
    labelNames: ['source'],
    registers: [this.registry],
  });

  private readonly bridgeExchanges = new Counter({
    name: 'identity_core_session_bridge_exchanges_total',
    help: 'Session-bridge exchanges answered by this process, by source and outcome (bridged, invalid_token, already_used, unknown_user, source_closed, provider_unavailable)',
    labelNames: ['source', 'outcome'],
    registers: [this.registry],
  });
  private readonly bridgeInvalidTokens = new Counter({
    name: 'identity_core_session_bridge_invalid_tokens_total',
    help: 'Old-provider tokens refused by the session bridge in this process, by source and cause',
    labelNames: ['source', 'cause'],
    registers: [this.registry],
  });
  private readonly bridgeKeyFetches = new Counter({
    name: 'identity_core_session_bridge_key_fetches_total',
    help: "Fetches of an old provider's published keys by this process, by source and result (ok, failed)",
    labelNames: ['source', 'result'],
    registers: [this.registry],
  });

  constructor(sources: MetricSources) {
    const { registry } = this;
    new Gauge({
      name: 'identity_core_lazy_pending_users',
      help: 'Users still waiting for their first sign-in, by lazy-migration source (counted at most every 30 s)',
      labelNames: ['source'],
      registers: [registry],
      async collect() {
        for (const [source, count] of await sources.lazyPending().catch(() => new Map<string, number>())) this.set({ source }, count);
      },
    });
    new Gauge({
      name: 'identity_core_lazy_breaker_open',
      help: 'Whether the breaker of a lazy-migration source stops calls to it (1) or not (0)',
      labelNames: ['source'],
      registers: [registry],
      collect() {
        for (const [source, state] of sources.lazyBreakers()) this.set({ source }, state === 'open' ? 1 : 0);
      },
    });
    new Gauge({
      name: 'identity_core_hashing_queue_depth',
      help: 'Hash and verify operations waiting for a slot, by hashing pool',
      labelNames: ['pool'],
      registers: [registry],
      collect() {
        for (const [pool, state] of Object.entries(sources.hashingQueues())) this.set({ pool: label(pool) }, state.queued);
      },
    });
    new Gauge({
      name: 'identity_core_hashing_in_progress',
      help: 'Hash and verify operations running, by hashing pool',
      labelNames: ['pool'],
      registers: [registry],
      collect() {
        for (const [pool, state] of Object.entries(sources.hashingQueues())) this.set({ pool: label(pool) }, state.running);
      },
    });
    new Gauge({
      name: 'identity_core_bulk_import_queue_rows',
      help: 'Rows in the bulk-import queue, by status (imported rows leave the queue)',
      labelNames: ['status'],
      registers: [registry],
      async collect() {
        const counts = await sources.bulkQueueCounts();
        if (!counts) return;
        for (const [status, count] of Object.entries(counts)) this.set({ status }, count);
      },
    });
    const poolGauge = (name: string, help: string, read: (pool: pg.Pool) => number) =>
      new Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          this.set(read(sources.pool));
        },
      });
    poolGauge('identity_core_db_pool_max', 'Connections the database pool may open', (pool) => pool.options.max);
    poolGauge('identity_core_db_pool_connections', 'Connections the database pool holds open', (pool) => pool.totalCount);
    poolGauge('identity_core_db_pool_idle', 'Open connections not in use', (pool) => pool.idleCount);
    poolGauge('identity_core_db_pool_waiting', 'Queries waiting for a free connection', (pool) => pool.waitingCount);
    // Zero samples from the start, so a rate() over them exists before the first rejection or import.
    for (const pool of HASH_POOLS) this.hashingRejected.inc({ pool: pool.toLowerCase() }, 0);
    for (const result of ['imported', 'failed']) this.bulkImported.inc({ result }, 0);
  }

  requestAnswered(method: string, route: string | undefined, statusCode: number, seconds: number): void {
    const labels = { method: knownMethods.has(method) ? method : 'OTHER', route: route ?? 'unmatched', status_code: statusCode };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  verified({ algorithm, pool, matched, waitSeconds, verifySeconds }: VerificationReport): void {
    const labels = { algorithm: label(algorithm), outcome: matched ? 'match' : 'no_match' };
    this.verifications.inc(labels);
    this.verificationDuration.observe(labels, verifySeconds);
    if (waitSeconds !== undefined) this.hashingWait.observe({ pool: label(pool) }, waitSeconds);
  }

  rejected(pool: HashPool): void {
    this.hashingRejected.inc({ pool: label(pool) });
  }

  lazyVerified(source: string, outcome: string, seconds: number): void {
    this.lazyVerifications.inc({ source, outcome });
    if (seconds > 0) this.lazyVerifyDuration.observe({ source }, seconds);
  }

  lazyAdopted(source: string): void {
    this.lazyMigrated.inc({ source });
  }

  // Source names come from the configuration (an unknown one is a 400, never counted), so labels stay bounded.
  bridgeExchanged(source: string, outcome: string): void {
    this.bridgeExchanges.inc({ source, outcome });
  }

  bridgeTokenRefused(source: string, cause: string): void {
    this.bridgeInvalidTokens.inc({ source, cause });
  }

  bridgeKeysFetched(source: string, result: string): void {
    this.bridgeKeyFetches.inc({ source, result });
  }

  bulkBatchFinished(imported: number, failed: number): void {
    this.bulkImported.inc({ result: 'imported' }, imported);
    this.bulkImported.inc({ result: 'failed' }, failed);
  }

  async exposition(): Promise<string> {
    return `${await this.registry.metrics()}\n${await processMetrics().metrics()}`;
  }
}
