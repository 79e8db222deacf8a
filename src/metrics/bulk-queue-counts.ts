import type { QueueStatus } from '../bulk-import/repository.js';

type Counts = Record<QueueStatus, number>;

// Counting the queue scans its rows, which costs about 0.1 s per million. Scrapes (several Prometheus servers,
// a tight interval) share one count per `maxAgeMs`, and a count slower than `timeoutMs` is not waited for: the
// scrape then repeats the last known counts instead of holding the database and the scraper.
export class BulkQueueCounts {
  private last: Counts | undefined;
  private lastAt = -Infinity;
  private inFlight: Promise<Counts | undefined> | undefined;

  constructor(
    private readonly count: () => Promise<Counts>,
    private readonly options: { maxAgeMs: number; timeoutMs: number; now?: () => number },
  ) {}

  read(): Promise<Counts | undefined> {
    const now = this.options.now?.() ?? Date.now();
    if (now - this.lastAt < this.options.maxAgeMs) return Promise.resolve(this.last);
    this.inFlight ??= this.count()
      .then((counts) => {
        this.last = counts;
        this.lastAt = this.options.now?.() ?? Date.now();
        return counts;
      })
      .catch(() => this.last)
      .finally(() => (this.inFlight = undefined));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<Counts | undefined>((resolve) => {
      timer = setTimeout(() => resolve(this.last), this.options.timeoutMs);
    });
    return Promise.race([this.inFlight, timeout]).finally(() => clearTimeout(timer));
  }
}
