import { describe, expect, it } from 'vitest';
import { ImportSlots } from '../../src/bulk-import/import-slots.js';
import { slicesOf } from '../../src/bulk-import/import-now.js';
import { CoreError } from '../../src/errors.js';

describe('ImportSlots', () => {
  it('runs at most its size of tasks at once, in the order they asked, and passes results and failures through', async () => {
    const slots = new ImportSlots(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const task = (n: number) =>
      slots.run(async () => {
        started.push(n);
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 5 + (n % 3)));
        running--;
        if (n === 4) throw new Error('task 4 failed');
        return n * 10;
      });
    const outcomes = await Promise.allSettled([1, 2, 3, 4, 5, 6, 7].map(task));
    expect(most).toBe(2);
    expect(started).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : (outcome.reason as Error).message))).toEqual([
      10,
      20,
      30,
      'task 4 failed',
      50,
      60,
      70,
    ]);
    // A failed task gave its slot back: two run at once again.
    running = 0;
    most = 0;
    await Promise.all([8, 9, 10].map(task));
    expect(most).toBe(2);
  });

  it('lets in twice its size of requests at once; more are refused with a 503 to retry until one is released', () => {
    const slots = new ImportSlots(2);
    const releases = [1, 2, 3, 4].map(() => slots.admit());
    const refused = (() => {
      try {
        slots.admit();
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(CoreError);
    expect(refused).toMatchObject({
      code: 'IMPORT_BUSY',
      statusCode: 503,
      retryAfterSeconds: 1,
      publicMessage: 'Too many imports at once, retry after 1 seconds',
    });
    releases[0]();
    // Released twice, it still counts once.
    releases[0]();
    const again = slots.admit();
    expect(() => slots.admit()).toThrow('Too many imports at once');
    again();
    releases.slice(1).forEach((release) => release());
    expect([1, 2, 3, 4].map(() => slots.admit())).toHaveLength(4);
  });
});

describe('slicesOf', () => {
  const users = (count: number) => Array.from({ length: count }, (_, i) => i);

  it.each([
    [1, 2, [1]],
    [250, 2, [250]],
    [1999, 2, [1999]],
    [2000, 2, [1000, 1000]],
    [8001, 2, [4001, 4000]],
    [10000, 2, [5000, 5000]],
    [2500, 4, [1250, 1250]],
    [10000, 1, [10000]],
  ])('splits %i users over %i slots into slices of %j, in order', (count, slots, sizes) => {
    const slices = slicesOf(users(count), slots);
    expect(slices.map((slice) => slice.length)).toEqual(sizes);
    expect(slices.flat()).toEqual(users(count));
  });
});
