import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileShaCrypt, modulePath, renderModule } from '../../scripts/build-wasm.mjs';
import { parseCrypt, verifyCrypt } from '../../src/hashing/crypt.js';
import { mixRounds } from '../../src/hashing/crypt-rounds.js';
import { shaCryptInputs } from '../../src/hashing/sha-crypt.js';
import { digestBytesOf, shaCryptJob } from '../../src/hashing/sha-crypt-job.js';
import { runShaCryptRounds } from '../../src/hashing/sha-crypt-threads.js';
import { SHA_CRYPT_INDEPENDENT_VECTORS, SHA_CRYPT_PUBLISHED_VECTORS } from './legacy-vectors.js';

async function verify(password: string, hash: string): Promise<boolean | string> {
  const parsed = parseCrypt(hash);
  return parsed.ok ? verifyCrypt(password, parsed.value) : parsed.reason;
}

function mkpasswd(args: string[]): string | undefined {
  try {
    return execFileSync('mkpasswd', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

const SALT_CHARACTERS = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('SHA-crypt on the WebAssembly rounds loop', () => {
  it.each([...SHA_CRYPT_PUBLISHED_VECTORS, ...SHA_CRYPT_INDEPENDENT_VECTORS])(
    '$description ($source): the right password matches, a wrong one does not',
    async ({ password, hash }) => {
      expect(await verify(password, hash)).toBe(true);
      expect(await verify(password + 'x', hash)).toBe(false);
    },
  );

  it('checks running at once on several threads each get their own answer', async () => {
    const vectors = [...SHA_CRYPT_PUBLISHED_VECTORS, ...SHA_CRYPT_INDEPENDENT_VECTORS].filter(({ hash }) => !/rounds=\d{5,}/.test(hash));
    const checks = vectors.flatMap(({ password, hash }) => [verify(password, hash), verify(`${password}!`, hash)]);
    expect(await Promise.all(checks)).toEqual(vectors.flatMap(() => [true, false]));
  });

  // No independent tool takes passwords this long (libxcrypt stops at 511 bytes, OpenSSL cuts at 256): the longest
  // the core accepts is held to the node:crypto loop md5-crypt still uses, on inputs that make the thread's memory grow.
  it.each(['sha256', 'sha512'] as const)('%s: a 1024-byte password gives the digest of a loop over node:crypto', async (variant) => {
    const { a, p, s } = shaCryptInputs(variant, randomBytes(1024), 'sixteencharsalt.');
    const rounds = 1042;
    const expected = await mixRounds(variant, a, p, s, rounds);
    expect(await runShaCryptRounds(variant, shaCryptJob(variant, a, p, s), rounds, digestBytesOf(variant))).toEqual(expected);
  });

  const available = mkpasswd(['-m', 'sha-512', '-R', '1000', '-S', 'probeprobe', 'probe']) !== undefined;
  it.skipIf(!available).each(['sha-256', 'sha-512'])(
    'random passwords of 0 to 300 bytes and salts of 8 to 16 characters hashed by `mkpasswd -m %s` match',
    async (method) => {
      for (let i = 0; i < 6; i++) {
        const password = randomBytes(Math.floor(Math.random() * 226)).toString('base64');
        const salt = Array.from({ length: 8 + (i % 9) }, () => SALT_CHARACTERS[Math.floor(Math.random() * 64)]).join('');
        const rounds = String(1000 + Math.floor(Math.random() * 2000));
        const hash = mkpasswd(['-m', method, '-R', rounds, '-S', salt, password])!;
        expect(hash.startsWith(method === 'sha-256' ? '$5$' : '$6$')).toBe(true);
        expect(await verify(password, hash)).toBe(true);
        expect(await verify(`${password}x`, hash)).toBe(false);
      }
    },
  );

  it('the module in the source tree is what wasm/sha-crypt.ts compiles to (npm run build:wasm)', { timeout: 120_000 }, async () => {
    expect(fs.readFileSync(modulePath, 'utf8')).toBe(renderModule(await compileShaCrypt()));
  });
});
