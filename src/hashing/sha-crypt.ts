import { createHash, hash } from 'node:crypto';
import { encodeCryptGroups, type CryptGroup } from './crypt-base64.js';
import { digestBytesOf, shaCryptJob, type ShaCryptVariant } from './sha-crypt-job.js';
import { runShaCryptRounds } from './sha-crypt-threads.js';

const SHA256_GROUPS: readonly CryptGroup[] = [
  [0, 10, 20, 4],
  [21, 1, 11, 4],
  [12, 22, 2, 4],
  [3, 13, 23, 4],
  [24, 4, 14, 4],
  [15, 25, 5, 4],
  [6, 16, 26, 4],
  [27, 7, 17, 4],
  [18, 28, 8, 4],
  [9, 19, 29, 4],
  [-1, 31, 30, 3],
];

const SHA512_GROUPS: readonly CryptGroup[] = [
  [0, 21, 42, 4],
  [22, 43, 1, 4],
  [44, 2, 23, 4],
  [3, 24, 45, 4],
  [25, 46, 4, 4],
  [47, 5, 26, 4],
  [6, 27, 48, 4],
  [28, 49, 7, 4],
  [50, 8, 29, 4],
  [9, 30, 51, 4],
  [31, 52, 10, 4],
  [53, 11, 32, 4],
  [12, 33, 54, 4],
  [34, 55, 13, 4],
  [56, 14, 35, 4],
  [15, 36, 57, 4],
  [37, 58, 16, 4],
  [59, 17, 38, 4],
  [18, 39, 60, 4],
  [40, 61, 19, 4],
  [62, 20, 41, 4],
  [-1, -1, 63, 2],
];

/** The SHA-crypt checksum (43 characters for sha256, 86 for sha512) as Ulrich Drepper's specification defines it. */
export async function shaCryptChecksum(variant: ShaCryptVariant, password: Buffer, salt: string, rounds: number): Promise<string> {
  const { a, p, s } = shaCryptInputs(variant, password, salt);
  const digest = await runShaCryptRounds(variant, shaCryptJob(variant, a, p, s), rounds, digestBytesOf(variant));
  return encodeCryptGroups(digest, variant === 'sha256' ? SHA256_GROUPS : SHA512_GROUPS);
}

/** What the rounds loop starts from: the digest A and the P and S sequences (the specification's steps 1–20). */
export function shaCryptInputs(variant: ShaCryptVariant, password: Buffer, salt: string): { a: Buffer; p: Buffer; s: Buffer } {
  const saltBytes = Buffer.from(salt, 'latin1');
  const b = hash(variant, Buffer.concat([password, saltBytes, password]), 'buffer');
  const context = createHash(variant).update(password).update(saltBytes);
  for (let left = password.length; left > 0; left -= b.length) {
    context.update(b.subarray(0, Math.min(b.length, left)));
  }
  for (let bits = password.length; bits > 0; bits >>= 1) {
    context.update((bits & 1) === 1 ? b : password);
  }
  const a = context.digest();
  const p = stretch(hashRepeated(variant, password, password.length), password.length);
  const s = stretch(hashRepeated(variant, saltBytes, 16 + a[0]), saltBytes.length);
  return { a, p, s };
}

/** H(input × times), fed piece by piece: a 1024-byte password would otherwise mean a 1 MiB buffer. */
function hashRepeated(variant: ShaCryptVariant, input: Buffer, times: number): Buffer {
  const context = createHash(variant);
  for (let i = 0; i < times; i++) context.update(input);
  return context.digest();
}

/** The digest repeated, the last copy cut short, to exactly `length` bytes. */
function stretch(digest: Buffer, length: number): Buffer {
  const copies = Math.ceil(length / digest.length);
  return Buffer.concat(Array(copies).fill(digest)).subarray(0, length);
}
