import type { Queryable } from '../../db/pool.js';

const WINDOW_MS = 60_000;
// Expired windows are swept now and then by the failure that finds the table due for it.
const SWEEP_EVERY = 500;

interface WindowRow {
  scope: 'account' | 'client';
  started_at: number;
  failures: number;
}

/**
 * Counts failed sign-ins against COSTLY hashes, per account and per client, in windows of a minute. Each such failure
 * cost the core several ordinary sign-ins, so past the limit a sign-in that would need another costly verification
 * is answered "try later" at once instead of being verified: a few connections looping wrong passwords can then
 * spend at most `perClient` costly verifications a minute, and at most `perAccount` on any one account. The windows
 * are rows in PostgreSQL, so the limits hold for the deployment, however many cores share the database.
 */
export class CostlyFailureLimit {
  private failuresSinceSweep = 0;

  constructor(
    private readonly db: Queryable,
    private readonly perAccount: number,
    private readonly perClient: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds until the account and the client may try a costly verification again; 0 when they may now. */
  async waitMs(account: string, client: string | undefined): Promise<number> {
    const now = this.now();
    const { rows } = await this.db.query<WindowRow>(
      `SELECT scope, started_at, failures FROM signin_failure_windows
        WHERE (scope = 'account' AND key = $1) OR (scope = 'client' AND key = $2)`,
      [account, client ?? null],
    );
    let wait = 0;
    for (const row of rows) {
      const limit = row.scope === 'account' ? this.perAccount : this.perClient;
      if (now - row.started_at < WINDOW_MS && row.failures >= limit) wait = Math.max(wait, row.started_at + WINDOW_MS - now);
    }
    return wait;
  }

  async recordFailure(account: string, client: string | undefined): Promise<void> {
    const now = this.now();
    await this.db.query(
      `INSERT INTO signin_failure_windows AS w (scope, key, started_at, failures)
         SELECT scope, key, $3, 1 FROM (VALUES ('account', $1::text), ('client', $2::text)) AS k(scope, key) WHERE key IS NOT NULL
       ON CONFLICT (scope, key) DO UPDATE SET
         started_at = CASE WHEN $3 - w.started_at >= $4 THEN $3 ELSE w.started_at END,
         failures = CASE WHEN $3 - w.started_at >= $4 THEN 1 ELSE w.failures + 1 END`,
      [account, client ?? null, now, WINDOW_MS],
    );
    if (++this.failuresSinceSweep >= SWEEP_EVERY) {
      this.failuresSinceSweep = 0;
      await this.db.query('DELETE FROM signin_failure_windows WHERE started_at < $1', [now - WINDOW_MS]);
    }
  }

  /** A right password ends the account's count; the client's stays (it may be guessing at many accounts). */
  async recordSuccess(account: string): Promise<void> {
    await this.db.query(`DELETE FROM signin_failure_windows WHERE scope = 'account' AND key = $1`, [account]);
  }
}
