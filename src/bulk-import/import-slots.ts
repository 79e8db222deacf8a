import { importBusyError } from '../errors.js';

// The import transactions a core runs at once for requests with importNow, over all of them (its
// bulk_migration_parallelism). Each request is split over that many; two requests at once (the migration command keeps
// two in flight) would otherwise run twice as many, and more requests would take the whole connection pool from every
// other route. A slice waits here for a free slot, in the order it asked; it holds one slot and never waits for
// another, so none can deadlock.
// A request holds its whole body from its admission to its answer, so only so many are let in at once (validated,
// waiting for slots or importing); more are refused at once with a 503 to retry, instead of piling up behind the slots.
export class ImportSlots {
  readonly size: number;
  readonly maxRequests: number;
  private free: number;
  private readonly waiting: (() => void)[] = [];
  private requests = 0;

  constructor(size: number) {
    this.size = Math.max(1, size);
    this.free = this.size;
    // Two requests at once keep every slot busy (one is read and checked while the other is written).
    this.maxRequests = 2 * this.size;
  }

  /** Lets one request in until the returned release is called; throws IMPORT_BUSY (503) when maxRequests are in. */
  admit(): () => void {
    if (this.requests >= this.maxRequests) throw importBusyError();
    this.requests++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.requests--;
    };
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}
