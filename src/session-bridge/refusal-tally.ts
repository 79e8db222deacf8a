import type { Logger } from 'pino';
import { addRefusals, type RefusalCount } from './repository.js';

/**
 * Refusals counted in memory and added to the database in one statement every few seconds (and on stop), so a
 * flood of bad tokens costs one write per flush. A crash loses at most the last interval's counts; the metric,
 * counted at once, is the exact per-process figure.
 */
export class RefusalTally {
  private pending = new Map<string, RefusalCount>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly write: (counts: RefusalCount[]) => Promise<void>,
    private readonly clock: () => number,
    private readonly log: Logger,
  ) {}

  static forPool(db: Parameters<typeof addRefusals>[0], clock: () => number, log: Logger): RefusalTally {
    return new RefusalTally((counts) => addRefusals(db, counts), clock, log);
  }

  add(source: string, cause: string): void {
    const day = new Date(this.clock()).toISOString().slice(0, 10);
    const key = `${source}\u0000${day}\u0000${cause}`;
    const found = this.pending.get(key);
    if (found) found.count++;
    else this.pending.set(key, { source, day, cause, count: 1 });
  }

  start(intervalMs: number): void {
    this.timer ??= setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  /** Writes what was counted so far; flushes run one after another, and counts that fail to write are kept. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.pending.size === 0) return;
      const batch = this.pending;
      this.pending = new Map();
      try {
        await this.write([...batch.values()]);
      } catch (error) {
        for (const [key, count] of batch) {
          const found = this.pending.get(key);
          if (found) found.count += count.count;
          else this.pending.set(key, count);
        }
        this.log.warn({ err: error }, 'session-bridge refusal counts not written; kept for the next flush');
      }
    });
    return this.flushing;
  }
}
