import { hash } from 'node:crypto';
import { runInSlices } from './sliced-loop.js';

/** Round i's input depends only on i mod 2, 3 and 7, so 42 layouts cover every round. */
const LAYOUT_CYCLE = 42;

interface RoundLayout {
  input: Buffer;
  digestOffset: number;
}

/**
 * md5-crypt's stretching loop: round i hashes (odd ? p : digest) ‖ (i % 3 ? s) ‖ (i % 7 ? p) ‖ (odd ? digest : p)
 * with the password and salt as p and s. Each layout is built once and only the previous digest is copied in per
 * round. Its fixed 1000 rounds fit one slice; SHA-crypt's same loop, with up to a million rounds, runs in
 * WebAssembly on a worker thread (sha-crypt-job.ts, sha-crypt-threads.ts).
 */
export async function mixRounds(algorithm: string, initial: Buffer, p: Buffer, s: Buffer, rounds: number): Promise<Buffer> {
  const layouts = Array.from({ length: LAYOUT_CYCLE }, (_, round) => layoutOf(round, initial.length, p, s));
  let digest = initial;
  await runInSlices(rounds, (round) => {
    const { input, digestOffset } = layouts[round % LAYOUT_CYCLE];
    input.set(digest, digestOffset);
    digest = hash(algorithm, input, 'buffer');
  });
  return digest;
}

function layoutOf(round: number, digestLength: number, p: Buffer, s: Buffer): RoundLayout {
  const odd = round % 2 === 1;
  const slot = Buffer.alloc(digestLength);
  const middle = [round % 3 !== 0 ? s : undefined, round % 7 !== 0 ? p : undefined].filter((part) => part !== undefined);
  const parts = odd ? [p, ...middle, slot] : [slot, ...middle, p];
  const input = Buffer.concat(parts);
  return { input, digestOffset: odd ? input.length - digestLength : 0 };
}
