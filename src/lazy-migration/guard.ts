import type { SourceLimits } from './config.js';
import type { AdapterOutcome } from './outcome.js';

export type BreakerState = 'closed' | 'open' | 'half-open';

export type Admission = { admitted: true; release: (outcome: AdapterOutcome) => void } | { admitted: false; retryAfterMs: number };

/**
 * Protects one old provider: a token bucket for the call rate, a cap on calls in flight, a bounded wait for both,
 * and a breaker that stops calling after consecutive failures (at once on a configuration error) and lets one
 * probe through when it half-opens. Mismatches are answers, not failures.
 */
export class SourceGuard {
  private tokens: number;
  private refilledAt: number;
  private inFlight = 0;
  private failures = 0;
  private openUntil = 0;
  private probing = false;
  private readonly waiters: Array<() => void> = [];

  constructor(
    private readonly limits: SourceLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = limits.burst;
    this.refilledAt = now();
  }

  get state(): BreakerState {
    if (this.openUntil === 0) return 'closed';
    return this.now() < this.openUntil ? 'open' : 'half-open';
  }

  get callsInFlight(): number {
    return this.inFlight;
  }

  async admit(): Promise<Admission> {
    const state = this.state;
    if (state === 'open' || (state === 'half-open' && this.probing)) return { admitted: false, retryAfterMs: this.retryAfter() };
    const deadline = this.now() + this.limits.queueWaitMs;
    while (!this.takeSlot()) {
      const wait = Math.min(deadline - this.now(), this.msUntilToken());
      if (wait <= 0 || this.now() >= deadline) return { admitted: false, retryAfterMs: Math.max(1000, this.msUntilToken()) };
      await this.sleepOrSlot(wait);
    }
    const probe = this.state === 'half-open';
    if (probe) this.probing = true;
    let released = false;
    return {
      admitted: true,
      release: (outcome) => {
        if (released) return;
        released = true;
        this.inFlight--;
        if (probe) this.probing = false;
        this.record(outcome);
        this.waiters.shift()?.();
      },
    };
  }

  private takeSlot(): boolean {
    this.refill();
    if (this.inFlight >= this.limits.maxInFlight || this.tokens < 1) return false;
    this.tokens -= 1;
    this.inFlight++;
    return true;
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.limits.burst, this.tokens + ((now - this.refilledAt) / 1000) * this.limits.ratePerSecond);
    this.refilledAt = now;
  }

  private msUntilToken(): number {
    this.refill();
    if (this.inFlight >= this.limits.maxInFlight) return this.limits.queueWaitMs;
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) / this.limits.ratePerSecond) * 1000);
  }

  private sleepOrSlot(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        const index = this.waiters.indexOf(done);
        if (index !== -1) this.waiters.splice(index, 1);
        resolve();
      };
      const timer = setTimeout(done, Math.max(1, ms));
      this.waiters.push(done);
    });
  }

  private record(outcome: AdapterOutcome): void {
    switch (outcome.kind) {
      case 'CONFIG_ERROR':
        this.open(this.limits.breakerOpenMs);
        return;
      case 'UNAVAILABLE':
      case 'RATE_LIMITED': {
        this.failures++;
        // A failed half-open probe opens the breaker again; a provider that says when to come back is believed, up to
        // breaker.open_ms: one answer (a Retry-After of days, a mistaken reset time) must not stop adoptions for longer.
        const retry = outcome.kind === 'RATE_LIMITED' ? outcome.retryAfterMs : undefined;
        if (retry !== undefined) this.open(Math.min(retry, this.limits.breakerOpenMs));
        else if (this.failures >= this.limits.breakerFailures || this.openUntil !== 0) this.open(this.limits.breakerOpenMs);
        return;
      }
      default:
        this.failures = 0;
        this.openUntil = 0;
    }
  }

  /** The operator's close: calls go through again at once, and the failure count starts over. */
  close(): BreakerState {
    const before = this.state;
    this.failures = 0;
    this.openUntil = 0;
    this.probing = false;
    return before;
  }

  private open(ms: number): void {
    this.openUntil = this.now() + Math.max(1, ms);
  }

  private retryAfter(): number {
    return Math.max(1000, this.openUntil - this.now());
  }
}
