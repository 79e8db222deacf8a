import { describe, expect, it } from 'vitest';
import { ConcurrencyLimiter } from '../../src/hashing/limiter.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('ConcurrencyLimiter', () => {
  it.each([1, 2, 3])('never runs more than %i tasks at once and starts waiters in FIFO order', async (max) => {
    const limiter = new ConcurrencyLimiter(max);
    const gates = Array.from({ length: 6 }, deferred);
    const started: number[] = [];
    let running = 0;
    let peak = 0;
    const tasks = gates.map((gate, index) =>
      limiter.run(async () => {
        started.push(index);
        peak = Math.max(peak, ++running);
        await gate.promise;
        running--;
        return index;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual(Array.from({ length: max }, (_, i) => i));
    expect(limiter.queued).toBe(6 - max);
    for (const gate of gates) {
      gate.resolve();
      await new Promise((r) => setImmediate(r));
    }
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    expect(peak).toBe(max);
    expect(limiter.running).toBe(0);
  });

  it('releases the slot when a task fails, including synchronously', async () => {
    const limiter = new ConcurrencyLimiter(1);
    await expect(limiter.run(() => Promise.reject(new Error('async')))).rejects.toThrow('async');
    await expect(
      limiter.run(() => {
        throw new Error('sync');
      }),
    ).rejects.toThrow('sync');
    expect(await limiter.run(async () => 'still usable')).toBe('still usable');
    expect(limiter.running).toBe(0);
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects a limit of %s', (max) => {
    expect(() => new ConcurrencyLimiter(max)).toThrow(RangeError);
  });
});
