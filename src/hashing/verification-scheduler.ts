import { busyError, type CoreError } from '../errors.js';

export interface SchedulerLimits {
  /** Operations running at once, all algorithms together; the libuv thread pool is sized above it. */
  concurrency: number;
  /** Sum of the memory of the operations running at once. */
  memoryBudgetBytes: number;
  /** Interactive operations (those with a deadline) waiting at once; one more is refused at once. */
  queueLimit: number;
  /** Per kind (algorithm) cap on running operations, each at most `concurrency`. */
  kindLimits?: Readonly<Record<string, number>>;
}

export interface ScheduledWork<T> {
  /**
   * Work of one lane (one account) runs one operation at a time and lanes take turns, so hammering one account
   * queues behind that account only and never holds more than one thread.
   */
  lane: string;
  /** Background work may run up to this many operations of its lane at once (default 1). */
  laneLimit?: number;
  /** Callers with the same key while an operation is queued or running share its result (single flight). */
  flightKey?: string;
  kind: string;
  memoryBytes: number;
  /** A verification of a COSTLY hash: it runs in the costly share (see `isHeavy`). */
  costly?: boolean;
  /** Longest wait for a thread before the caller gets a 503; undefined waits as long as it takes. */
  deadlineMs?: number;
  run: () => Promise<T>;
}

interface Waiting {
  work: ScheduledWork<unknown>;
  enqueuedAt: number;
  timer?: NodeJS.Timeout;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

interface Lane {
  waiting: Waiting[];
  running: number;
}

/**
 * One scheduler for every hash and verify of the process: a fixed number of thread-pool slots, a memory budget
 * (the sum of what the running operations allocate, not their count), fair turns between accounts, a bounded
 * queue whose waits end in a 503 with Retry-After, and single flight for identical requests.
 */
export class VerificationScheduler {
  private readonly lanes = new Map<string, Lane>();
  private readonly flights = new Map<string, Promise<unknown>>();
  private readonly runningByKind = new Map<string, number>();
  private readonly waitingByKind = new Map<string, number>();
  private active = 0;
  private memoryInUse = 0;
  private heavyActive = 0;
  private heavyMemoryInUse = 0;
  private waitingCount = 0;
  private waitingWithDeadline = 0;
  private isStopping = false;
  private idleWaiters: Array<() => void> = [];
  private counters = { started: 0, shared: 0, deadlineRejections: 0, queueFullRejections: 0, waitMsTotal: 0 };

  constructor(private readonly limits: SchedulerLimits) {
    if (!Number.isInteger(limits.concurrency) || limits.concurrency < 1) {
      throw new RangeError(`concurrency must be a positive integer, got ${limits.concurrency}`);
    }
  }

  get running(): number {
    return this.active;
  }

  /** True once stop() was called: interactive work is refused from then on. */
  get stopping(): boolean {
    return this.isStopping;
  }

  get queueDepth(): number {
    return this.waitingCount;
  }

  /** Operations of one kind (algorithm pool) running and waiting. */
  kindState(kind: string): { running: number; queued: number } {
    return { running: this.runningByKind.get(kind) ?? 0, queued: this.waitingByKind.get(kind) ?? 0 };
  }

  get memoryInUseBytes(): number {
    return this.memoryInUse;
  }

  get startedCount(): number {
    return this.counters.started;
  }

  /** Callers that joined an identical operation instead of starting their own. */
  get sharedCount(): number {
    return this.counters.shared;
  }

  get deadlineRejections(): number {
    return this.counters.deadlineRejections;
  }

  get queueFullRejections(): number {
    return this.counters.queueFullRejections;
  }

  /** Total milliseconds started operations spent waiting for a slot; divide by startedCount for the mean. */
  get waitMsTotal(): number {
    return this.counters.waitMsTotal;
  }

  schedule<T>(work: ScheduledWork<T>): Promise<T> {
    if (work.flightKey !== undefined) {
      const shared = this.flights.get(work.flightKey);
      if (shared) {
        this.counters.shared++;
        return shared as Promise<T>;
      }
    }
    const result = this.enqueue(work);
    if (work.flightKey !== undefined) {
      const key = work.flightKey;
      this.flights.set(key, result);
      const forget = () => this.flights.delete(key);
      result.then(forget, forget);
    }
    return result;
  }

  /**
   * Refuses new and waiting interactive work (503); running operations finish, and background work (bulk import,
   * which its worker drains on shutdown) carries on.
   */
  stop(): void {
    this.isStopping = true;
    for (const lane of this.lanes.values()) {
      const refused = lane.waiting.filter((entry) => entry.work.deadlineMs !== undefined);
      lane.waiting = lane.waiting.filter((entry) => entry.work.deadlineMs === undefined);
      for (const entry of refused) this.refuse(entry, busyError(this.retryAfterSeconds(entry.work)));
    }
    this.pruneLanes();
  }

  /** Resolves once no operation is running. */
  idle(): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private enqueue<T>(work: ScheduledWork<T>): Promise<T> {
    if (this.isStopping && work.deadlineMs !== undefined) return Promise.reject(busyError(this.retryAfterSeconds(work)));
    if (work.deadlineMs !== undefined && this.waitingWithDeadline >= this.limits.queueLimit) {
      this.counters.queueFullRejections++;
      return Promise.reject(busyError(this.retryAfterSeconds(work)));
    }
    return new Promise<T>((resolve, reject) => {
      const entry: Waiting = { work, enqueuedAt: performance.now(), resolve: resolve as (value: unknown) => void, reject };
      const lane = this.lanes.get(work.lane) ?? { waiting: [], running: 0 };
      this.lanes.set(work.lane, lane);
      lane.waiting.push(entry);
      this.countWaiting(entry, 1);
      if (work.deadlineMs !== undefined) {
        entry.timer = setTimeout(() => this.expire(lane, entry), work.deadlineMs);
      }
      this.pump();
    });
  }

  private expire(lane: Lane, entry: Waiting): void {
    const index = lane.waiting.indexOf(entry);
    if (index === -1) return;
    lane.waiting.splice(index, 1);
    this.counters.deadlineRejections++;
    this.refuse(entry, busyError(this.retryAfterSeconds(entry.work)));
    this.pruneLanes();
  }

  private refuse(entry: Waiting, error: CoreError): void {
    clearTimeout(entry.timer);
    this.countWaiting(entry, -1);
    entry.reject(error);
  }

  private countWaiting(entry: Waiting, change: 1 | -1): void {
    this.waitingCount += change;
    this.waitingByKind.set(entry.work.kind, (this.waitingByKind.get(entry.work.kind) ?? 0) + change);
    if (entry.work.deadlineMs !== undefined) this.waitingWithDeadline += change;
  }

  private pump(): void {
    while (this.active < this.limits.concurrency) {
      const picked = this.pickNext();
      if (!picked) return;
      this.start(picked.lane, picked.laneName);
    }
  }

  // Lanes are kept in the order they last had a turn: the first one that may start goes, then moves to the back.
  private pickNext(): { lane: Lane; laneName: string } | undefined {
    for (const [laneName, lane] of this.lanes) {
      const head = lane.waiting[0];
      if (!head || lane.running >= (head.work.laneLimit ?? 1)) continue;
      if (!this.kindHasRoom(head.work.kind) || !this.memoryHasRoom(head.work.memoryBytes)) continue;
      if (this.isHeavy(head.work) && !this.heavyHasRoom(head.work.memoryBytes)) continue;
      this.lanes.delete(laneName);
      this.lanes.set(laneName, lane);
      return { lane, laneName };
    }
    return undefined;
  }

  private kindHasRoom(kind: string): boolean {
    const limit = this.limits.kindLimits?.[kind];
    return limit === undefined || (this.runningByKind.get(kind) ?? 0) < limit;
  }

  // An operation larger than the whole budget may only run alone, so it can never wait forever.
  private memoryHasRoom(bytes: number): boolean {
    return this.memoryInUse + bytes <= this.limits.memoryBudgetBytes || this.active === 0;
  }

  // Costly operations (verifications of COSTLY hashes, and any over a quarter of the memory budget) share at most
  // half the slots (at least one) and three quarters of the budget, so a storm of them, however many accounts and
  // connections it uses, always leaves ordinary sign-ins slots of their own.
  private isHeavy(work: ScheduledWork<unknown>): boolean {
    return work.costly === true || work.memoryBytes > this.limits.memoryBudgetBytes / 4;
  }

  private heavyHasRoom(bytes: number): boolean {
    if (this.active === 0) return true;
    const slots = Math.max(1, Math.floor(this.limits.concurrency / 2));
    return this.heavyActive < slots && this.heavyMemoryInUse + bytes <= (this.limits.memoryBudgetBytes * 3) / 4;
  }

  private start(lane: Lane, laneName: string): void {
    const entry = lane.waiting.shift()!;
    clearTimeout(entry.timer);
    this.countWaiting(entry, -1);
    const { kind, memoryBytes } = entry.work;
    this.active++;
    lane.running++;
    this.memoryInUse += memoryBytes;
    const heavy = this.isHeavy(entry.work);
    if (heavy) {
      this.heavyActive++;
      this.heavyMemoryInUse += memoryBytes;
    }
    this.runningByKind.set(kind, (this.runningByKind.get(kind) ?? 0) + 1);
    this.counters.started++;
    this.counters.waitMsTotal += performance.now() - entry.enqueuedAt;
    const finish = () => {
      this.active--;
      lane.running--;
      this.memoryInUse -= memoryBytes;
      if (heavy) {
        this.heavyActive--;
        this.heavyMemoryInUse -= memoryBytes;
      }
      this.runningByKind.set(kind, this.runningByKind.get(kind)! - 1);
      if (lane.running === 0 && lane.waiting.length === 0) this.lanes.delete(laneName);
      this.pump();
      if (this.active === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    };
    let running: Promise<unknown>;
    try {
      running = entry.work.run();
    } catch (error) {
      running = Promise.reject(error);
    }
    running.then(
      (value) => {
        finish();
        entry.resolve(value);
      },
      (error: unknown) => {
        finish();
        entry.reject(error);
      },
    );
  }

  private pruneLanes(): void {
    for (const [name, lane] of this.lanes) if (lane.running === 0 && lane.waiting.length === 0) this.lanes.delete(name);
  }

  private retryAfterSeconds(work: ScheduledWork<unknown>): number {
    return Math.max(1, Math.ceil((work.deadlineMs ?? 1000) / 1000));
  }
}
