const window = 50;

/**
 * How long a failed sign-in is held: the configured floor, raised to the slowest of the last 50 sign-in
 * verifications. Imported users keep the cost of the system they came from (bcrypt 10, argon2 at 19 MiB, scrypt at
 * 16 MiB…) and the decoy of an unknown email costs what this core's own hashes cost, so without a common floor each
 * kind of account answers a wrong password in its own time. Load slows every hash alike, and the window moves the
 * floor with it, so the floor stays above them on a busy machine too. Only failures are held: a success already
 * tells the caller that the account exists.
 */
export class SignInFailureFloor {
  private readonly recent: number[] = [];
  private next = 0;

  constructor(private readonly minimumMs: number) {}

  record(durationMs: number): void {
    this.recent[this.next] = durationMs;
    this.next = (this.next + 1) % window;
  }

  async holdUntilFloor(startedAt: number): Promise<void> {
    if (this.minimumMs === 0) return;
    const floor = Math.max(this.minimumMs, ...this.recent);
    const remaining = floor - (performance.now() - startedAt);
    if (remaining > 0) await new Promise((resolve) => setTimeout(resolve, remaining));
  }
}
