import { createHash, hash } from 'node:crypto';
import { encodeCryptGroups, type CryptGroup } from './crypt-base64.js';
import { mixRounds } from './crypt-rounds.js';

const MAGIC = '$1$';
const ROUNDS = 1000;
const ZERO_BYTE = Buffer.alloc(1);
const OUTPUT_GROUPS: readonly CryptGroup[] = [
  [0, 6, 12, 4],
  [1, 7, 13, 4],
  [2, 8, 14, 4],
  [3, 9, 15, 4],
  [4, 10, 5, 4],
  [-1, -1, 11, 2],
];

/** The 22-character md5-crypt checksum (Poul-Henning Kamp's algorithm) of a password and a salt of at most 8 characters. */
export async function md5CryptChecksum(password: Buffer, salt: string): Promise<string> {
  const saltBytes = Buffer.from(salt, 'latin1');
  const alternate = hash('md5', Buffer.concat([password, saltBytes, password]), 'buffer');
  const context = createHash('md5').update(password).update(MAGIC).update(saltBytes);
  for (let left = password.length; left > 0; left -= alternate.length) {
    context.update(alternate.subarray(0, Math.min(alternate.length, left)));
  }
  // The original reads a zeroed digest buffer here, hence a zero byte for each set bit.
  for (let bits = password.length; bits > 0; bits >>= 1) {
    context.update((bits & 1) === 1 ? ZERO_BYTE : password.subarray(0, 1));
  }
  const digest = await mixRounds('md5', context.digest(), password, saltBytes, ROUNDS);
  return encodeCryptGroups(digest, OUTPUT_GROUPS);
}
