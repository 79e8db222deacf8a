// How long one verification of each format takes at the costliest parameters the default import bounds accept, next
// to bcrypt cost 10 (an ordinary sign-in) measured in the same run: `npx vite-node bench/tools/hash-costs.ts`.
// The README's hostile-conditions section and the bounds in src/hashing/cost-limits.ts quote its output.
import crypto from 'node:crypto';
import os from 'node:os';
import argon2 from 'argon2';
import bcrypt from 'bcrypt';
import { DEFAULT_COST_LIMITS } from '../../src/hashing/cost-limits.js';
import { detectFormat } from '../../src/hashing/formats.js';
import { SHA_CRYPT_LIMITS } from '../../src/hashing/crypt.js';
import { PHPASS_LIMITS } from '../../src/hashing/phpass.js';

const repeats = Number(process.env.REPEATS ?? 3);
const limits = DEFAULT_COST_LIMITS;
const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');
const log2 = (value: number) => Math.floor(Math.log2(value));

async function candidates(): Promise<Array<{ name: string; hash: string }>> {
  const argon2Memory = Math.min(limits.maxMemoryKib, limits.maxArgon2WorkKib);
  const argon2Passes = Math.max(1, Math.floor(limits.maxArgon2WorkKib / argon2Memory));
  // scrypt memory is 128·N·r bytes: the largest power-of-two N with r = 8 inside the memory bound.
  const scryptLog2N = log2((limits.maxMemoryKib * 1024) / (128 * 8));
  const pbkdf2Salt = b64(crypto.randomBytes(16));
  return [
    { name: 'bcrypt cost 10 (ordinary sign-in)', hash: await bcrypt.hash('x', 10) },
    { name: `bcrypt cost ${limits.maxBcryptCost}`, hash: await bcrypt.hash('x', limits.maxBcryptCost) },
    {
      name: `argon2id m=${argon2Memory / 1024} MiB t=${argon2Passes} p=1`,
      hash: await argon2.hash('x', { type: argon2.argon2id, memoryCost: argon2Memory, timeCost: argon2Passes, parallelism: 1 }),
    },
    {
      name: `scrypt ln=${scryptLog2N} r=8 p=1`,
      hash: `$scrypt$ln=${scryptLog2N},r=8,p=1$${b64(crypto.randomBytes(16))}$${b64(crypto.randomBytes(32))}`,
    },
    {
      name: `sha512-crypt rounds=${limits.maxCryptRounds}`,
      hash: `$6$rounds=${limits.maxCryptRounds}$saltsalt$${'a'.repeat(85)}.`,
    },
    {
      name: `sha512-crypt rounds=${SHA_CRYPT_LIMITS.maxRounds} (hard limit)`,
      hash: `$6$rounds=${SHA_CRYPT_LIMITS.maxRounds}$saltsalt$${'a'.repeat(85)}.`,
    },
    {
      name: `PBKDF2-SHA512 ${limits.maxPbkdf2Iterations} iterations, 64 bytes`,
      hash: `$pbkdf2-sha512$i=${limits.maxPbkdf2Iterations},l=64$${pbkdf2Salt}$${b64(crypto.randomBytes(64))}`,
    },
    {
      name: `PBKDF2-SHA256 ${limits.maxPbkdf2Iterations} iterations, 32 bytes`,
      hash: `$pbkdf2-sha256$i=${limits.maxPbkdf2Iterations},l=32$${pbkdf2Salt}$${b64(crypto.randomBytes(32))}`,
    },
    {
      name: `phpass 2^${PHPASS_LIMITS.maxLog2Rounds} rounds (hard limit)`,
      hash: `$P$${'./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'[PHPASS_LIMITS.maxLog2Rounds]}saltsalt${'a'.repeat(21)}.`,
    },
  ];
}

async function timeOne(hash: string): Promise<number> {
  const format = detectFormat(hash);
  if (!format) throw new Error(`no format for ${hash.slice(0, 20)}`);
  const parsed = format.parse(hash, limits);
  if (!parsed.ok) return Number.NaN;
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const started = performance.now();
    await format.verify('wrong password', parsed.value, {});
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

const rows = await candidates();
const results: Array<{ name: string; ms: number }> = [];
for (const row of rows) results.push({ name: row.name, ms: await timeOne(row.hash) });
const ceiling = results[0].ms;
process.stdout.write(`${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)}, median of ${repeats}\n`);
for (const { name, ms } of results) {
  const shown = Number.isNaN(ms) ? 'refused at import' : `${ms.toFixed(0)} ms  ×${(ms / ceiling).toFixed(1)} bcrypt-10`;
  process.stdout.write(`${name.padEnd(48)} ${shown}\n`);
}
