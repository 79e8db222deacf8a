const WINDOW_MS = 60_000;
const MAX_TRACKED = 100_000;

interface Window {
  startedAt: number;
  failures: number;
}

/**
 * Counts failed sign-ins against COSTLY hashes, per account and per client, in windows of a minute. Each such failure
 * cost the core several ordinary sign-ins, so past the limit a sign-in that would need another costly verification
 * is answered "try later" at once instead of being verified: a few connections looping wrong passwords can then
 * spend at most `perClient` costly verifications a minute, and at most `perAccount` on any one account.
 */
export class CostlyFailureLimit {
  private readonly accounts = new Map<string, Window>();
  private readonly clients = new Map<string, Window>();

  constructor(
    private readonly perAccount: number,
    private readonly perClient: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds until the account and the client may try a costly verification again; 0 when they may now. */
  waitMs(account: string, client: string | undefined): number {
    const now = this.now();
    return Math.max(this.waitOf(this.accounts, account, this.perAccount, now), this.waitOf(this.clients, client, this.perClient, now));
  }

  recordFailure(account: string, client: string | undefined): void {
    const now = this.now();
    this.count(this.accounts, account, now);
    if (client !== undefined) this.count(this.clients, client, now);
  }

  /** A right password ends the account's count; the client's stays (it may be guessing at many accounts). */
  recordSuccess(account: string): void {
    this.accounts.delete(account);
  }

  private waitOf(windows: Map<string, Window>, key: string | undefined, limit: number, now: number): number {
    const window = key === undefined ? undefined : windows.get(key);
    if (!window || now - window.startedAt >= WINDOW_MS || window.failures < limit) return 0;
    return window.startedAt + WINDOW_MS - now;
  }

  private count(windows: Map<string, Window>, key: string, now: number): void {
    if (windows.size >= MAX_TRACKED) {
      for (const [name, window] of windows) if (now - window.startedAt >= WINDOW_MS) windows.delete(name);
    }
    const window = windows.get(key);
    if (!window || now - window.startedAt >= WINDOW_MS) windows.set(key, { startedAt: now, failures: 1 });
    else window.failures++;
  }
}
