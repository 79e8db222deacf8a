import { describe, expect, it } from 'vitest';
import { ImportSlots } from '../../src/bulk-import/import-slots.js';

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
});
