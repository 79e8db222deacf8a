import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseCrypt, verifyCrypt } from '../../src/hashing/crypt.js';
import { md5CryptChecksum } from '../../src/hashing/md5-crypt.js';
import { CRYPT_VECTORS, SHA512_CRYPT_656000 } from './legacy-vectors.js';
import { flipDigestCharacter } from './vectors.js';

async function verify(password: string, hash: string): Promise<boolean | string> {
  const parsed = parseCrypt(hash);
  return parsed.ok ? verifyCrypt(password, parsed.value) : parsed.reason;
}

describe('crypt family vectors', () => {
  it.each(CRYPT_VECTORS)('$description ($source): right password matches', async ({ password, hash }) => {
    expect(await verify(password, hash)).toBe(true);
  });

  // The negatives skip the 535,000-round vector: they would only repeat its cost.
  const quick = CRYPT_VECTORS.filter(({ hash }) => !hash.includes('rounds=535000'));

  it.each(quick)('$description: wrong password does not match', async ({ password, hash }) => {
    expect(await verify(password + 'x', hash)).toBe(false);
  });

  it.each(quick)('$description: one checksum character flipped does not match', async ({ password, hash }) => {
    expect(await verify(password, flipDigestCharacter(hash, hash.lastIndexOf('$') + 1))).toBe(false);
  });

  it.each([
    ['$md5-crypt$', '$1$SuMrG47N$ymvzYjr7QcEQjaK5m1PGx1', 'test'],
    ['$sha256-crypt$', '$5$rounds=12345$abc/DEF.123$0IlU3HRX4801IR7meVUQQVtpGvJG.D04tuzGm22qJSB', 'ünïcødé ✓'],
    ['$sha512-crypt$', '$6$nL0.hR7s$mlwVu7hVTiDxyf3w5nUZ5hzyQMaiBCLSPenyI9GHRP/FbNs3xTdqj7g6l8Nll/36kjelnZw8TC9a/mNy3jb.g0', 'Tr0ub4dor&3'],
  ])('the Kratos prefix %s names the same computation', async (prefix, hash, password) => {
    const renamed = prefix + hash.slice(3);
    expect(await verify(password, renamed)).toBe(true);
    expect(await verify(password + 'x', renamed)).toBe(false);
  });

  it(`${SHA512_CRYPT_656000.description} matches and does not hold the event loop`, { timeout: 120_000 }, async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const matched = await verify(SHA512_CRYPT_656000.password, SHA512_CRYPT_656000.hash);
    clearInterval(timer);
    expect(matched).toBe(true);
    expect(ticks).toBeGreaterThan(10);
  });

  it('a password over 1024 bytes never matches, even against its own hash', async () => {
    const long = 'a'.repeat(1025);
    const hash = `$1$abcdefgh$${await md5CryptChecksum(Buffer.from(long), 'abcdefgh')}`;
    expect(await verify(long, hash)).toBe(false);
    expect(await verify(long.slice(1), `$1$abcdefgh$${await md5CryptChecksum(Buffer.from(long.slice(1)), 'abcdefgh')}`)).toBe(true);
  });

  const openssl = execOpenssl(['-1', 'probe']) !== undefined;
  it.skipIf(!openssl).each(['-1', '-5', '-6'])('random passwords hashed by `openssl passwd %s` match', async (flag) => {
    for (let i = 0; i < 3; i++) {
      const password = randomBytes(12).toString('base64');
      const hash = execOpenssl([flag, password]) as string;
      expect(await verify(password, hash)).toBe(true);
      expect(await verify(password.slice(1), hash)).toBe(false);
    }
  });
});

describe('crypt parse', () => {
  const sha512 = (head: string) => `$6$${head}$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1`;
  it.each([
    { description: 'default rounds', hash: sha512('saltstring'), rounds: 5000 },
    { description: 'lowest rounds', hash: sha512('rounds=1000$saltstring'), rounds: 1000 },
    { description: 'highest rounds', hash: sha512('rounds=1000000$saltstring'), rounds: 1_000_000 },
  ])('accepts $description', ({ hash, rounds }) => {
    const parsed = parseCrypt(hash);
    expect(parsed.ok && parsed.value.rounds).toBe(rounds);
  });

  it.each([
    {
      description: 'unknown prefix',
      hash: '$7$abc$def',
      reason: 'must start with $1$, $5$, $6$, $md5-crypt$, $sha256-crypt$ or $sha512-crypt$',
    },
    {
      description: 'md5-crypt with rounds',
      hash: '$1$rounds=5000$SuMrG47N$ymvzYjr7QcEQjaK5m1PGx1',
      reason: 'md5-crypt must be $1$<salt>$<checksum>',
    },
    {
      description: 'md5-crypt salt of 9',
      hash: '$1$SuMrG47Nx$ymvzYjr7QcEQjaK5m1PGx1',
      reason: 'md5-crypt salt must be at most 8 characters, got 9',
    },
    {
      description: 'md5-crypt short checksum',
      hash: '$1$SuMrG47N$ymvzYjr7QcEQjaK5m1PGx',
      reason: 'md5-crypt checksum must be exactly 22 characters, got 21',
    },
    {
      description: 'md5-crypt padding bits',
      hash: '$1$SuMrG47N$ymvzYjr7QcEQjaK5m1PGxz',
      reason: 'md5-crypt checksum has non-zero padding bits in its last character',
    },
    {
      description: 'rounds below 1000',
      hash: sha512('rounds=999$saltstring'),
      reason: 'sha512-crypt rounds must be between 1000 and 1000000, got 999',
    },
    {
      description: 'rounds above 1000000',
      hash: sha512('rounds=999999999$saltstring'),
      reason: 'sha512-crypt rounds must be between 1000 and 1000000, got 999999999',
    },
    {
      description: 'rounds with a leading zero',
      hash: sha512('rounds=05000$saltstring'),
      reason: 'sha512-crypt rounds must be rounds=<decimal integer without leading zeros>',
    },
    { description: 'salt of 17', hash: sha512('saltstringsaltstr'), reason: 'sha512-crypt salt must be at most 16 characters, got 17' },
    {
      description: 'salt outside the alphabet',
      hash: sha512('salt_string'),
      reason: 'sha512-crypt salt must use only the characters ./0-9A-Za-z',
    },
    {
      description: 'trailing field',
      hash: sha512('rounds=5000$saltstring') + '$',
      reason: 'sha512-crypt must be $6$[rounds=<rounds>$]<salt>$<checksum>',
    },
    {
      description: 'sha256-crypt checksum of sha512 length',
      hash: '$5' + sha512('saltstring').slice(2),
      reason: 'sha256-crypt checksum must be exactly 43 characters, got 86',
    },
    {
      description: 'checksum outside the alphabet',
      hash: sha512('saltstring').replace('svn8', 'sv-8'),
      reason: 'sha512-crypt checksum must use only the characters ./0-9A-Za-z',
    },
  ])('refuses $description', ({ hash, reason }) => {
    expect(parseCrypt(hash)).toEqual({ ok: false, reason, recognised: false });
  });
});

function execOpenssl(args: string[]): string | undefined {
  try {
    return execFileSync('openssl', ['passwd', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}
