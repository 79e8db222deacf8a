import type pg from 'pg';
import type { Logger } from 'pino';
import type { SignedIn } from '../users/user-object.js';
import type { BridgeSourceConfig, SessionBridgeConfig } from './config.js';
import { KeySet, type FetchResult } from './key-set.js';
import type { InvalidCause } from './kinds/types.js';
import { RefusalTally } from './refusal-tally.js';
import { progressPerDay, spendToken } from './repository.js';
import { verifyOldToken } from './verify.js';

export type BridgeOutcome = 'bridged' | 'invalid_token' | 'already_used' | 'unknown_user' | 'source_closed' | 'provider_unavailable';

/** What the service reports for the metrics (it knows nothing of Prometheus). */
export interface SessionBridgeObserver {
  bridgeExchanged(source: string, outcome: BridgeOutcome): void;
  bridgeTokenRefused(source: string, cause: InvalidCause): void;
  bridgeKeysFetched(source: string, result: FetchResult): void;
}

export type ExchangeResult =
  | { status: 'OK'; signedIn: SignedIn }
  | { status: 'INVALID_TOKEN_ERROR' }
  | { status: 'TOKEN_ALREADY_USED_ERROR' }
  | { status: 'UNKNOWN_USER_ERROR' }
  | { status: 'SOURCE_CLOSED_ERROR' }
  | { status: 'UNKNOWN_SOURCE' }
  | { status: 'UNAVAILABLE'; retryAfterMs: number };

export interface SessionBridgeDependencies {
  pool: pg.Pool;
  config: SessionBridgeConfig;
  log: Logger;
  clock: () => number;
  observer?: SessionBridgeObserver;
}

interface Source {
  config: BridgeSourceConfig;
  keys: KeySet;
}

const REFUSAL_FLUSH_MS = 5000;
const PER_DAY_WINDOW_MS = 30 * 86_400_000;

/** Exchanges a valid token of the old provider, once, for the imported user it names; see docs/session-bridge.md. */
export class SessionBridgeService {
  private readonly sources = new Map<string, Source>();
  private readonly refusals: RefusalTally;

  constructor(private readonly deps: SessionBridgeDependencies) {
    for (const [name, config] of deps.config.sources) {
      const keys = new KeySet({
        url: config.jwksUrl,
        timeoutMs: config.timeoutMs,
        ttlMs: config.keyTtlMs,
        clock: deps.clock,
        onFetch: (result, reason) => {
          deps.observer?.bridgeKeysFetched(name, result);
          if (result === 'failed') deps.log.warn({ source: name, reason }, 'session-bridge keys could not be fetched');
        },
      });
      this.sources.set(name, { config, keys });
    }
    this.refusals = RefusalTally.forPool(deps.pool, deps.clock, deps.log);
  }

  start(): void {
    if (this.sources.size > 0) this.refusals.start(REFUSAL_FLUSH_MS);
  }

  stop(): Promise<void> {
    return this.refusals.stop();
  }

  async exchange(tenantId: string, sourceName: string, token: string): Promise<ExchangeResult> {
    const source = this.sources.get(sourceName);
    if (!source) return { status: 'UNKNOWN_SOURCE' };
    const { config } = source;
    const now = this.deps.clock();
    if (config.deadline !== undefined && now >= config.deadline) return this.refuse(config.name, 'source_closed', 'SOURCE_CLOSED_ERROR');
    const verified = await verifyOldToken(config, source.keys, token, now);
    if (verified.status === 'UNAVAILABLE') {
      this.count(config.name, 'provider_unavailable');
      return { status: 'UNAVAILABLE', retryAfterMs: verified.retryAfterMs };
    }
    if (verified.status === 'INVALID') {
      // The cause, never the token: a refused token may still be valid somewhere else.
      this.deps.log.info({ source: config.name, cause: verified.cause }, 'session-bridge token refused');
      this.deps.observer?.bridgeTokenRefused(config.name, verified.cause);
      this.refusals.add(config.name, verified.cause);
      this.deps.observer?.bridgeExchanged(config.name, 'invalid_token');
      return { status: 'INVALID_TOKEN_ERROR' };
    }
    const externalId = config.externalIdPrefix + verified.subject;
    if (config.foreignPrefixes.some((prefix) => externalId.startsWith(prefix))) {
      return this.refuse(config.name, 'unknown_user', 'UNKNOWN_USER_ERROR');
    }
    const spent = await spendToken(this.deps.pool, {
      tenantId,
      oldId: verified.subject,
      externalIdPrefix: config.externalIdPrefix,
      lazySource: config.lazySource,
      digest: verified.digest,
      source: config.name,
      at: now,
      expiresAt: verified.expiresAt,
    });
    if (spent.status === 'UNKNOWN_USER') return this.refuse(config.name, 'unknown_user', 'UNKNOWN_USER_ERROR');
    if (spent.status === 'ALREADY_USED') return this.refuse(config.name, 'already_used', 'TOKEN_ALREADY_USED_ERROR');
    this.deps.observer?.bridgeExchanged(config.name, 'bridged');
    return { status: 'OK', signedIn: { user: spent.user, loginMethod: spent.loginMethod } };
  }

  /** Per configured source: its kind, deadline, and per UTC day (last 30) the exchanges and refusals by cause. */
  async progress() {
    await this.refusals.flush();
    const days = await progressPerDay(this.deps.pool, this.deps.clock() - PER_DAY_WINDOW_MS);
    const names = new Set([...this.sources.keys(), ...days.map((day) => day.source)]);
    return [...names].sort().map((name) => {
      const config = this.sources.get(name)?.config;
      return {
        name,
        configured: config !== undefined,
        kind: config?.kind ?? null,
        deadline: config?.deadline === undefined ? null : new Date(config.deadline).toISOString(),
        days: days.filter((day) => day.source === name).map(({ day, bridged, users, refused }) => ({ day, bridged, users, refused })),
      };
    });
  }

  private refuse<S extends 'SOURCE_CLOSED_ERROR' | 'UNKNOWN_USER_ERROR' | 'TOKEN_ALREADY_USED_ERROR'>(
    source: string,
    outcome: BridgeOutcome,
    status: S,
  ): { status: S } {
    this.count(source, outcome);
    return { status };
  }

  private count(source: string, outcome: BridgeOutcome): void {
    this.refusals.add(source, outcome);
    this.deps.observer?.bridgeExchanged(source, outcome);
  }
}
