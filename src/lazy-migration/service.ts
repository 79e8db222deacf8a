import crypto from 'node:crypto';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { LazyMigrationConfig, SourceConfig } from './config.js';
import { keepLease } from './lease-keeper.js';
import { createAdapter } from './adapters/index.js';
import { SourceGuard, type BreakerState } from './guard.js';
import { verifyOutcomeName, type AdapterOutcome, type SourceAdapter, type VerifyOutcomeName } from './outcome.js';

export type { VerifyOutcomeName } from './outcome.js';
import { parseLazyPointer } from '../hashing/lazy-pointer.js';
import {
  acquireLease,
  adoptionsPerDay,
  adoptPassword,
  listPendingUsers,
  readPasswordHash,
  releaseLease,
  renewLease,
  returnLazyAttempt,
  sourceProgress,
  takeLazyAttempt,
} from './repository.js';
import { SingleFlight } from './single-flight.js';

export interface LazySignInInput {
  userId: string;
  tenantId: string;
  email: string;
  externalUserId?: string;
  pointer: string;
  password: string;
  clientIp?: string;
}

export type LazySignInOutcome =
  | { status: 'ADOPTED' }
  /** `spendDecoy`: the source was not asked, so the caller spends the time a verification takes. */
  | { status: 'WRONG_CREDENTIALS'; spendDecoy: boolean }
  /** Someone else replaced the pointer meanwhile: verify the password against what is stored now. */
  | { status: 'STORED_HASH_CHANGED' }
  | { status: 'UNAVAILABLE'; retryAfterMs: number }
  /** The user's calls to the old provider this hour are used up: try later, never "wrong password". */
  | { status: 'THROTTLED'; retryAfterMs: number };

/** What the service reports for the metrics (it knows nothing of Prometheus). */
export interface LazyMigrationObserver {
  lazyVerified(source: string, outcome: VerifyOutcomeName, seconds: number): void;
  lazyAdopted(source: string): void;
}

export interface LazyMigrationDependencies {
  pool: pg.Pool;
  config: LazyMigrationConfig;
  log: Logger;
  clock: () => number;
  /** Hashes an adopted password with the configured algorithm. */
  hashPassword: (password: string) => Promise<string>;
  userAgent: string;
  observer?: LazyMigrationObserver;
}

interface Source {
  config: SourceConfig;
  adapter: SourceAdapter;
  guard: SourceGuard;
}

const LEASE_EXTRA_MS = 2000;
const LEASE_POLL_MS = 100;
const ATTEMPT_WINDOW_MS = 3_600_000;
const PER_DAY_WINDOW_MS = 30 * 86_400_000;

/** Adopts pending users at their first sign-in by asking the old provider once; see docs/lazy-migration.md. */
export class LazyMigrationService {
  private readonly sources = new Map<string, Source>();
  private readonly flights = new SingleFlight<LazySignInOutcome>();
  // Identical concurrent requests share a flight; the key holds an HMAC of the password under a key that dies with
  // the process, never the password itself.
  private readonly flightKey = crypto.randomBytes(32);
  private readonly instanceId = crypto.randomUUID();
  private readonly outcomes = new Map<string, number>();
  private pendingCache: { at: number; counts: Promise<Map<string, number>> } | undefined;

  constructor(private readonly deps: LazyMigrationDependencies) {
    for (const [name, source] of deps.config.sources) {
      this.sources.set(name, { config: source, adapter: createAdapter(source, deps.userAgent), guard: new SourceGuard(source) });
    }
  }

  async signIn(input: LazySignInInput): Promise<LazySignInOutcome> {
    const parsed = parseLazyPointer(input.pointer);
    const source = parsed.ok ? this.sources.get(parsed.value.source) : undefined;
    if (!parsed.ok || !source || !this.deps.config.enabled) {
      this.count(parsed.ok ? parsed.value.source : 'invalid', 'source_unknown');
      this.deps.log.error({ userId: input.userId }, 'pending user names a lazy-migration source that is not configured or enabled');
      return { status: 'WRONG_CREDENTIALS', spendDecoy: true };
    }
    const name = source.config.name;
    if (source.config.deadline !== undefined && this.deps.clock() >= source.config.deadline) {
      this.count(name, 'expired');
      return { status: 'WRONG_CREDENTIALS', spendDecoy: true };
    }
    // Identical concurrent sign-ins share one flight, and only a flight takes one of the user's attempts.
    const key = `${input.userId}:${crypto.createHmac('sha256', this.flightKey).update(input.password).digest('base64')}`;
    return this.flights.run(key, () => this.signInOnce(input, source, parsed.value));
  }

  /** Asks a source about one password without storing anything (the canary). */
  async check(sourceName: string, login: string, password: string): Promise<AdapterOutcome | undefined> {
    const source = this.sources.get(sourceName);
    if (!source) return undefined;
    const admission = await source.guard.admit();
    if (!admission.admitted) return { kind: 'RATE_LIMITED', retryAfterMs: admission.retryAfterMs };
    const outcome = await this.callAdapter(source, { login, password, userId: '', tenantId: 'public' });
    admission.release(outcome);
    return outcome;
  }

  /** A page of a source's pending users with the old login and id from their pointers; never the pointer itself. */
  async pending(source: string, limit: number, after?: string) {
    const users = await listPendingUsers(this.deps.pool, source, limit + 1, after);
    const page = users.slice(0, limit).map((user) => {
      const parsed = parseLazyPointer(user.pointer);
      return {
        userId: user.userId,
        externalUserId: user.externalUserId,
        email: user.email,
        legacyLogin: parsed.ok ? (parsed.value.legacyLogin ?? null) : null,
        legacyUserId: parsed.ok ? (parsed.value.legacyUserId ?? null) : null,
        timeJoined: user.timeJoined,
      };
    });
    return { users: page, next: users.length > limit ? page[page.length - 1].userId : undefined };
  }

  async progress() {
    const counts = await sourceProgress(this.deps.pool);
    const daily = await adoptionsPerDay(this.deps.pool, Date.now() - PER_DAY_WINDOW_MS);
    const names = new Set([...this.sources.keys(), ...counts.map((row) => row.source)]);
    return [...names].sort().map((name) => {
      const row = counts.find((count) => count.source === name);
      const source = this.sources.get(name);
      return {
        name,
        configured: source !== undefined,
        kind: source?.config.kind ?? null,
        pending: row?.pending ?? 0,
        migrated: { signin: row?.migratedBySignin ?? 0, replaced: row?.migratedOtherwise ?? 0 },
        lastMatchAt: row?.lastMatchAt ?? null,
        migratedPerDay: daily.filter((entry) => entry.source === name).map(({ day, signin, replaced }) => ({ day, signin, replaced })),
        deadline: source?.config.deadline === undefined ? null : new Date(source.config.deadline).toISOString(),
        breaker: source?.guard.state ?? null,
        outcomes: Object.fromEntries(
          [...this.outcomes].filter(([k]) => k.startsWith(`${name}:`)).map(([k, v]) => [k.slice(name.length + 1), v]),
        ),
      };
    });
  }

  private async signInOnce(
    input: LazySignInInput,
    source: Source,
    pointer: { legacyLogin?: string; legacyUserId?: string },
  ): Promise<LazySignInOutcome> {
    const owner = `${this.instanceId}:${crypto.randomUUID()}`;
    const leaseMs = source.config.timeoutMs + LEASE_EXTRA_MS;
    const waited = await this.waitForLease(input, owner, leaseMs);
    if (waited) return waited;
    let leased = true;
    const stopRenewing = keepLease(() => renewLease(this.deps.pool, input.userId, owner, Date.now(), leaseMs), leaseMs);
    try {
      // Caps guesses through this core at the old account, so nobody can lock a user out there by guessing here.
      const now = this.deps.clock();
      const max = this.deps.config.maxAttemptsPerUserPerHour;
      const attempt = await takeLazyAttempt(this.deps.pool, input.userId, now, ATTEMPT_WINDOW_MS, max);
      if (!attempt.taken) {
        this.count(source.config.name, 'throttled_user');
        return { status: 'THROTTLED', retryAfterMs: Math.max(1000, attempt.windowEndsAt - now) };
      }
      const admission = await source.guard.admit();
      if (!admission.admitted) {
        await returnLazyAttempt(this.deps.pool, input.userId);
        this.count(source.config.name, 'busy');
        return { status: 'UNAVAILABLE', retryAfterMs: admission.retryAfterMs };
      }
      const request = {
        ...input,
        login: pointer.legacyLogin ?? input.email,
        legacyLogin: pointer.legacyLogin,
        legacyUserId: pointer.legacyUserId,
      };
      const started = performance.now();
      const outcome = await this.callAdapter(source, request);
      admission.release(outcome);
      const secondFactors = outcome.kind === 'MATCH' ? outcome.secondFactors : undefined;
      const keptPending = secondFactors !== undefined && !source.config.acceptMfaChallenge;
      const answered = verifyOutcomeName(outcome, pointer.legacyUserId);
      const name = answered === 'match' && keptPending ? 'mfa_kept_pending' : answered;
      this.count(source.config.name, name, (performance.now() - started) / 1000);
      this.deps.log.info({ userId: input.userId, source: source.config.name, outcome: name }, 'lazy migration: old provider answered');
      if (name === 'id_mismatch')
        this.deps.log.error({ userId: input.userId, source: source.config.name }, 'old provider answered for another user id');
      if (outcome.kind === 'CONFIG_ERROR') {
        this.deps.log.error({ source: source.config.name, reason: outcome.reason }, 'lazy migration source refused our configuration');
      }
      if (name === 'match') {
        const newHash = await this.deps.hashPassword(input.password);
        leased = false;
        const mark = secondFactors && {
          required: true as const,
          factors: secondFactors,
          source: source.config.name,
          markedAt: this.deps.clock(),
        };
        const adopted = await adoptPassword(this.deps.pool, input.userId, input.pointer, newHash, owner, mark);
        if (adopted && mark) {
          this.deps.log.info(
            { userId: input.userId, source: source.config.name, factors: mark.factors },
            'lazy migration: marked for re-enrolment',
          );
        }
        if (adopted) this.deps.observer?.lazyAdopted(source.config.name);
        return adopted ? { status: 'ADOPTED' } : { status: 'STORED_HASH_CHANGED' };
      }
      if (outcome.kind === 'RATE_LIMITED' || outcome.kind === 'UNAVAILABLE' || outcome.kind === 'CONFIG_ERROR') {
        await returnLazyAttempt(this.deps.pool, input.userId);
        const retry = outcome.kind === 'RATE_LIMITED' ? outcome.retryAfterMs : undefined;
        return { status: 'UNAVAILABLE', retryAfterMs: Math.min(retry ?? 30_000, source.config.breakerOpenMs) };
      }
      return { status: 'WRONG_CREDENTIALS', spendDecoy: false };
    } finally {
      stopRenewing();
      if (leased) await releaseLease(this.deps.pool, input.userId, owner).catch(() => undefined);
    }
  }

  /** Undefined once this flight holds the lease; an outcome when waiting ended another way. */
  private async waitForLease(input: LazySignInInput, owner: string, leaseMs: number): Promise<LazySignInOutcome | undefined> {
    // Leases and waits run on wall-clock time: instances sharing a database must agree on it.
    const giveUpAt = Date.now() + leaseMs + LEASE_POLL_MS * 10;
    for (;;) {
      if (await acquireLease(this.deps.pool, input.userId, owner, Date.now(), leaseMs)) {
        // The holder before us may have adopted the password meanwhile.
        if ((await readPasswordHash(this.deps.pool, input.userId)) === input.pointer) return undefined;
        await releaseLease(this.deps.pool, input.userId, owner);
        return { status: 'STORED_HASH_CHANGED' };
      }
      if ((await readPasswordHash(this.deps.pool, input.userId)) !== input.pointer) return { status: 'STORED_HASH_CHANGED' };
      if (Date.now() >= giveUpAt) return { status: 'UNAVAILABLE', retryAfterMs: 1000 };
      await new Promise((resolve) => setTimeout(resolve, LEASE_POLL_MS));
    }
  }

  private async callAdapter(source: Source, request: Parameters<SourceAdapter['verify']>[0]): Promise<AdapterOutcome> {
    try {
      return await source.adapter.verify(request, AbortSignal.timeout(source.config.timeoutMs));
    } catch {
      return { kind: 'UNAVAILABLE', reason: 'adapter failed' };
    }
  }

  private count(source: string, outcome: VerifyOutcomeName, seconds = 0): void {
    const key = `${source}:${outcome}`;
    this.outcomes.set(key, (this.outcomes.get(key) ?? 0) + 1);
    this.deps.observer?.lazyVerified(source, outcome, seconds);
  }

  /** Closes a source's breaker in this instance; undefined when no such source is configured. */
  closeBreaker(sourceName: string): BreakerState | undefined {
    const source = this.sources.get(sourceName);
    if (!source) return undefined;
    const before = source.guard.close();
    this.deps.log.warn({ source: sourceName, before }, 'lazy migration: breaker closed by an operator');
    return before;
  }

  /** Breaker state per configured source, for the metrics. */
  breakerStates(): Map<string, BreakerState> {
    return new Map([...this.sources].map(([name, source]) => [name, source.guard.state]));
  }

  /** Pending users per configured source; one count per `maxAgeMs` however often it is asked (scrapes). */
  pendingCounts(maxAgeMs = 30_000): Promise<Map<string, number>> {
    const now = Date.now();
    if (this.pendingCache && now - this.pendingCache.at < maxAgeMs) return this.pendingCache.counts;
    const counts = sourceProgress(this.deps.pool).then(
      (rows) => new Map([...this.sources.keys()].map((name) => [name, rows.find((row) => row.source === name)?.pending ?? 0])),
    );
    this.pendingCache = { at: now, counts };
    counts.catch(() => (this.pendingCache = undefined));
    return counts;
  }
}
