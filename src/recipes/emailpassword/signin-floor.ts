const window = 50;

/** Failed sign-ins are held per class: an ordinary one never waits as long as a costly hash takes. */
export type FloorClass = 'standard' | 'costly';

/**
 * How long a failed sign-in is held: the configured floor, raised to the slowest of the last 50 sign-in
 * verifications of its class. Imported users keep the cost of the system they came from (bcrypt 10, argon2 at 19 MiB,
 * scrypt at 16 MiB…) and the decoy of an unknown email costs what this core's own hashes cost, so without a common
 * floor each kind of account answers a wrong password in its own time. Load slows every hash alike, and the window
 * moves the floor with it, so the floor stays above them on a busy machine too. Only failures are held: a success
 * already tells the caller that the account exists. Accounts whose hashes are COSTLY (several ordinary sign-ins
 * each) have a window of their own: a few of them must not make every mistyped password wait seconds, at the price
 * that their failures are told apart from the others' by their time.
 */
export class SignInFailureFloor {
  private readonly recent: Record<FloorClass, number[]> = { standard: [], costly: [] };
  private readonly next: Record<FloorClass, number> = { standard: 0, costly: 0 };

  constructor(private readonly minimumMs: number) {}

  record(durationMs: number, floorClass: FloorClass = 'standard'): void {
    this.recent[floorClass][this.next[floorClass]] = durationMs;
    this.next[floorClass] = (this.next[floorClass] + 1) % window;
  }

  async holdUntilFloor(startedAt: number, floorClass: FloorClass = 'standard'): Promise<void> {
    if (this.minimumMs === 0) return;
    const floor = Math.max(this.minimumMs, ...this.recent[floorClass]);
    const remaining = floor - (performance.now() - startedAt);
    if (remaining > 0) await new Promise((resolve) => setTimeout(resolve, remaining));
  }
}
