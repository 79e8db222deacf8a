/**
 * Hash loops of the legacy formats (md5-crypt's 1000 rounds, phpass iterations) are many small synchronous digest
 * calls with no asynchronous form in node:crypto. Running them in slices with a yield between keeps the event loop
 * answering other requests during a verification that can take seconds. SHA-crypt, with up to a million rounds,
 * runs on worker threads instead (sha-crypt-threads.ts).
 */
const SLICE_ROUNDS = 1000;

export async function runInSlices(count: number, step: (index: number) => void): Promise<void> {
  for (let start = 0; start < count; start += SLICE_ROUNDS) {
    if (start > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const end = Math.min(count, start + SLICE_ROUNDS);
    for (let index = start; index < end; index++) step(index);
  }
}
