import { describe, expect, it } from 'vitest';
import { CoreError } from '../../src/errors.js';
import { VerificationScheduler, type ScheduledWork } from '../../src/hashing/verification-scheduler.js';

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

// Work that records when it starts and ends only when its gate opens.
function tracked(started: string[], name: string, fields: Partial<ScheduledWork<string>> = {}) {
  const g = gate();
  const work: ScheduledWork<string> = {
    lane: name,
    kind: 'BCRYPT',
    memoryBytes: 1,
    run: async () => {
      started.push(name);
      await g.promise;
      return name;
    },
    ...fields,
  };
  return { work, open: g.open };
}

const unlimited = { concurrency: 2, memoryBudgetBytes: 1_000, queueLimit: 100 };

describe('VerificationScheduler', () => {
  it('keeps the memory of running operations within the budget, not just their count', async () => {
    const scheduler = new VerificationScheduler({ ...unlimited, concurrency: 4, memoryBudgetBytes: 1_000 });
    const started: string[] = [];
    const big = ['a', 'b', 'c'].map((name) => tracked(started, name, { memoryBytes: 600 }));
    const results = big.map(({ work }) => scheduler.schedule(work));
    await settle();
    expect([started, scheduler.running, scheduler.memoryInUseBytes, scheduler.queueDepth]).toEqual([['a'], 1, 600, 2]);
    big[0].open();
    await settle();
    expect([started, scheduler.memoryInUseBytes]).toEqual([['a', 'b'], 600]);
    big[1].open();
    big[2].open();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c']);
    expect([scheduler.running, scheduler.memoryInUseBytes, scheduler.queueDepth]).toEqual([0, 0, 0]);
  });

  it('keeps half the slots and a quarter of the budget free of costly operations for ordinary ones', async () => {
    const scheduler = new VerificationScheduler({ ...unlimited, concurrency: 4, memoryBudgetBytes: 800 });
    const started: string[] = [];
    const costly = ['h1', 'h2', 'h3'].map((name) => tracked(started, name, { memoryBytes: 250 }));
    const results = costly.map(({ work }) => scheduler.schedule(work));
    await settle();
    expect(started).toEqual(['h1', 'h2']);
    const ordinary = tracked(started, 'ordinary', { memoryBytes: 100 });
    results.push(scheduler.schedule(ordinary.work));
    await settle();
    expect([started, scheduler.memoryInUseBytes]).toEqual([['h1', 'h2', 'ordinary'], 600]);
    for (const { open } of [...costly, ordinary]) open();
    await Promise.all(results);
    expect(started).toEqual(['h1', 'h2', 'ordinary', 'h3']);
  });

  it('runs verifications of COSTLY hashes in their share whatever their memory, one of two slots', async () => {
    const scheduler = new VerificationScheduler({ ...unlimited, concurrency: 2 });
    const started: string[] = [];
    const costly = ['c1', 'c2', 'c3'].map((name) => tracked(started, name, { memoryBytes: 10, costly: true, lane: name }));
    const results = costly.map(({ work }) => scheduler.schedule(work));
    await settle();
    expect(started).toEqual(['c1']);
    const ordinary = tracked(started, 'ordinary', { memoryBytes: 10, lane: 'ordinary' });
    results.push(scheduler.schedule(ordinary.work));
    await settle();
    expect(started).toEqual(['c1', 'ordinary']);
    for (const { open } of [...costly, ordinary]) open();
    await Promise.all(results);
    expect(started).toEqual(['c1', 'ordinary', 'c2', 'c3']);
  });

  it('lets an operation larger than the whole budget run, alone', async () => {
    const scheduler = new VerificationScheduler({ ...unlimited, memoryBudgetBytes: 100 });
    const started: string[] = [];
    const huge = tracked(started, 'huge', { memoryBytes: 500 });
    const small = tracked(started, 'small', { memoryBytes: 1 });
    const results = [scheduler.schedule(huge.work), scheduler.schedule(small.work)];
    await settle();
    expect(started).toEqual(['huge']);
    huge.open();
    small.open();
    expect(await Promise.all(results)).toEqual(['huge', 'small']);
  });

  it('runs one operation per lane and gives other lanes their turn before a hammered one', async () => {
    const scheduler = new VerificationScheduler({ ...unlimited, concurrency: 2 });
    const started: string[] = [];
    const storm = Array.from({ length: 5 }, (_, i) => tracked(started, `storm${i}`, { lane: 'hostile' }));
    const stormResults = storm.map(({ work }) => scheduler.schedule(work));
    const normal = tracked(started, 'normal');
    const normalResult = scheduler.schedule(normal.work);
    await settle();
    // One slot for the hammered account, the other free at once for everyone else.
    expect(started).toEqual(['storm0', 'normal']);
    normal.open();
    expect(await normalResult).toBe('normal');
    for (const { open } of storm) open();
    expect(await Promise.all(stormResults)).toHaveLength(5);
  });

  it('honours per-algorithm caps inside the shared slots', async () => {
    const scheduler = new VerificationScheduler({ ...unlimited, concurrency: 3, kindLimits: { ARGON2: 1 } });
    const started: string[] = [];
    const argon = ['x', 'y'].map((name) => tracked(started, name, { kind: 'ARGON2' }));
    const bcrypt = tracked(started, 'z', { kind: 'BCRYPT' });
    const results = [...argon, bcrypt].map(({ work }) => scheduler.schedule(work));
    await settle();
    expect(started).toEqual(['x', 'z']);
    for (const { open } of [...argon, bcrypt]) open();
    await Promise.all(results);
    expect(started).toEqual(['x', 'z', 'y']);
  });

  it('answers 503 with Retry-After when the wait passes the deadline, and counts it', async () => {
    const scheduler = new VerificationScheduler({ ...unlimited, concurrency: 1 });
    const started: string[] = [];
    const blocker = tracked(started, 'blocker');
    const blocked = scheduler.schedule(blocker.work);
    const late = scheduler.schedule(tracked(started, 'late', { deadlineMs: 30 }).work);
    const error = await late.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CoreError);
    expect([(error as CoreError).statusCode, (error as CoreError).publicMessage, (error as CoreError).retryAfterSeconds]).toEqual([
      503,
      'Password verification is busy, retry after 1 seconds',
      1,
    ]);
    expect([scheduler.deadlineRejections, scheduler.queueDepth, started]).toEqual([1, 0, ['blocker']]);
    blocker.open();
    expect(await blocked).toBe('blocker');
  });

  it('refuses interactive work beyond the queue limit at once, never background work', async () => {
    const scheduler = new VerificationScheduler({ ...unlimited, concurrency: 1, queueLimit: 2 });
    const started: string[] = [];
    const blocker = tracked(started, 'blocker');
    const all = [scheduler.schedule(blocker.work)];
    const queued = [1, 2].map((i) => tracked(started, `q${i}`, { deadlineMs: 60_000 }));
    all.push(...queued.map(({ work }) => scheduler.schedule(work)));
    await expect(scheduler.schedule(tracked(started, 'over', { deadlineMs: 60_000 }).work)).rejects.toMatchObject({ statusCode: 503 });
    const background = tracked(started, 'background');
    all.push(scheduler.schedule(background.work));
    expect([scheduler.queueFullRejections, scheduler.queueDepth]).toEqual([1, 3]);
    for (const { open } of [blocker, ...queued, background]) open();
    expect(await Promise.all(all)).toEqual(['blocker', 'q1', 'q2', 'background']);
  });

  it('shares one operation between identical requests (single flight) and forgets it once settled', async () => {
    const scheduler = new VerificationScheduler(unlimited);
    let runs = 0;
    const g = gate();
    const work = { lane: 'acct', flightKey: 'k', kind: 'BCRYPT', memoryBytes: 1, run: async () => (await g.promise, ++runs) };
    const callers = Array.from({ length: 10 }, () => scheduler.schedule(work));
    g.open();
    expect(await Promise.all(callers)).toEqual(Array(10).fill(1));
    expect([scheduler.startedCount, scheduler.sharedCount]).toEqual([1, 9]);
    expect(await scheduler.schedule(work)).toBe(2);
  });

  it('on stop refuses waiting and new interactive work, lets running and background work finish', async () => {
    const scheduler = new VerificationScheduler({ ...unlimited, concurrency: 1 });
    const started: string[] = [];
    const running = tracked(started, 'running', { deadlineMs: 60_000 });
    const background = tracked(started, 'background');
    const results = [scheduler.schedule(running.work), scheduler.schedule(background.work)];
    const waiting = scheduler.schedule(tracked(started, 'waiting', { deadlineMs: 60_000 }).work);
    scheduler.stop();
    await expect(waiting).rejects.toMatchObject({ statusCode: 503 });
    await expect(scheduler.schedule(tracked(started, 'new', { deadlineMs: 1 }).work)).rejects.toMatchObject({ statusCode: 503 });
    running.open();
    background.open();
    expect(await Promise.all(results)).toEqual(['running', 'background']);
    await scheduler.idle();
    expect(scheduler.running).toBe(0);
  });

  it('a failing operation frees its slot and memory', async () => {
    const scheduler = new VerificationScheduler({ ...unlimited, concurrency: 1 });
    await expect(
      scheduler.schedule({ lane: 'a', kind: 'BCRYPT', memoryBytes: 10, run: () => Promise.reject(new Error('boom')) }),
    ).rejects.toThrow('boom');
    await expect(
      scheduler.schedule({
        lane: 'a',
        kind: 'BCRYPT',
        memoryBytes: 10,
        run: () => {
          throw new Error('sync');
        },
      }),
    ).rejects.toThrow('sync');
    expect([scheduler.running, scheduler.memoryInUseBytes]).toEqual([0, 0]);
    expect(await scheduler.schedule({ lane: 'a', kind: 'BCRYPT', memoryBytes: 10, run: async () => 'ok' })).toBe('ok');
  });
});
