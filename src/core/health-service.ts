import type { Queryable } from '../db/pool.js';

// The reference's limit on /hello's storage check: a bucket of 5 probes, one more every 200 ms, so unauthenticated
// /hello traffic costs the database at most 5 queries a second (plus the burst) however fast it arrives.
const burst = 5;
const refillMs = 200;

export class HealthService {
  private tokens = burst;
  private refilledAt = performance.now();
  private lastProbe: Promise<void> = Promise.resolve();
  private probes = 0;

  constructor(private readonly db: Queryable) {}

  /** Database probes run so far. */
  get probeCount(): number {
    return this.probes;
  }

  // Without a token, the answer is that of the latest probe: a database that just failed keeps answering 500.
  check(): Promise<void> {
    if (this.takeToken()) {
      this.probes++;
      this.lastProbe = this.db.query('SELECT 1').then(() => undefined);
    }
    return this.lastProbe;
  }

  private takeToken(): boolean {
    const now = performance.now();
    const earned = Math.floor((now - this.refilledAt) / refillMs);
    if (earned > 0) {
      this.tokens = Math.min(burst, this.tokens + earned);
      this.refilledAt = this.tokens === burst ? now : this.refilledAt + earned * refillMs;
    }
    if (this.tokens === 0) return false;
    this.tokens--;
    return true;
  }
}
