import { hash } from 'node:crypto';
import { encodeCryptLittleEndian } from './crypt-base64.js';
import { runInSlices } from './sliced-loop.js';

export type PhpassDigest = 'md5' | 'sha512';

/**
 * phpass's portable hash (Drupal 7 uses the same loop with SHA-512): x = H(salt ‖ password), then 2^log2Rounds
 * times x = H(x ‖ password); the result in phpass' base64, cut to `length` characters.
 */
export async function phpassChecksum(
  digest: PhpassDigest,
  password: Buffer,
  salt: string,
  log2Rounds: number,
  length: number,
): Promise<string> {
  let x = hash(digest, Buffer.concat([Buffer.from(salt, 'latin1'), password]), 'buffer');
  const input = Buffer.concat([x, password]);
  await runInSlices(2 ** log2Rounds, () => {
    input.set(x, 0);
    x = hash(digest, input, 'buffer');
  });
  return encodeCryptLittleEndian(x).slice(0, length);
}
