// The import transactions a core runs at once for requests with importNow, over all of them (its
// bulk_migration_parallelism). Each request is split over that many; two requests at once (the migration command keeps
// two in flight) would otherwise run twice as many, and more requests would take the whole connection pool from every
// other route. A slice waits here for a free slot, in the order it asked; it holds one slot and never waits for
// another, so none can deadlock.
export class ImportSlots {
  readonly size: number;
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.size = Math.max(1, size);
    this.free = this.size;
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
