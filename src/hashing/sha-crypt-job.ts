export type ShaCryptVariant = 'sha256' | 'sha512';

/** Round i's input depends only on i mod 2, 3 and 7, so 42 layouts cover every round. */
export const LAYOUT_CYCLE = 42;
const TABLE_BYTES = LAYOUT_CYCLE * 12;
/** Where the digest sits in a job: after the table, before the layouts. */
export const JOB_DIGEST_OFFSET = TABLE_BYTES;
const LAYOUTS_OFFSET = TABLE_BYTES + 64;

const SHA2 = {
  sha256: { digestBytes: 32, blockBytes: 64, lengthBytes: 8 },
  sha512: { digestBytes: 64, blockBytes: 128, lengthBytes: 16 },
} as const;

/**
 * The input of the WebAssembly rounds loop (wasm/sha-crypt.ts): a table of the 42 round layouts (offset, blocks,
 * digest slot), the digest A, then each layout — (odd ? P : digest) ‖ (i % 3 ? S) ‖ (i % 7 ? P) ‖ (odd ? digest : P)
 * — padded once here as SHA-2 pads a message of that length, so that a round only copies the digest in and hashes.
 */
export function shaCryptJob(variant: ShaCryptVariant, a: Buffer, p: Buffer, s: Buffer): Buffer {
  const { digestBytes, blockBytes, lengthBytes } = SHA2[variant];
  const layouts = Array.from({ length: LAYOUT_CYCLE }, (_, round) => {
    const odd = round % 2 === 1;
    const middle = (round % 3 !== 0 ? s.length : 0) + (round % 7 !== 0 ? p.length : 0);
    const messageBytes = digestBytes + middle + p.length;
    const blocks = Math.ceil((messageBytes + 1 + lengthBytes) / blockBytes);
    return { round, odd, messageBytes, blocks, slot: odd ? messageBytes - digestBytes : 0 };
  });
  const size = layouts.reduce((total, layout) => total + layout.blocks * blockBytes, LAYOUTS_OFFSET);
  const job = Buffer.alloc(size);
  a.copy(job, JOB_DIGEST_OFFSET);
  let offset = LAYOUTS_OFFSET;
  for (const { round, odd, messageBytes, blocks, slot } of layouts) {
    job.writeUInt32LE(offset, round * 12);
    job.writeUInt32LE(blocks, round * 12 + 4);
    job.writeUInt32LE(slot, round * 12 + 8);
    let at = offset + (odd ? p.copy(job, offset) : digestBytes);
    if (round % 3 !== 0) at += s.copy(job, at);
    if (round % 7 !== 0) at += p.copy(job, at);
    if (!odd) p.copy(job, at);
    job[offset + messageBytes] = 0x80;
    // The length in bits, big-endian, in the last bytes of the last block; it never needs more than 32 bits here.
    job.writeUInt32BE(messageBytes * 8, offset + blocks * blockBytes - 4);
    offset += blocks * blockBytes;
  }
  return job;
}

export function digestBytesOf(variant: ShaCryptVariant): number {
  return SHA2[variant].digestBytes;
}
