import { describe, expect, it } from 'vitest';
import { DEFAULT_COST_LIMITS } from '../../src/hashing/cost-limits.js';
import { parseScrypt, scryptFormat } from '../../src/hashing/scrypt.js';
import { independentVectors } from './independent/modern-vectors.js';

const PUBLISHED = [
  {
    description: 'passlib PHC form (passlib test suite)',
    password: 'test',
    hash: '$scrypt$ln=8,r=8,p=1$wlhLyXmP8b53bm1NKYVQqg$mTpvG8lzuuDk+DWz8HZIB6Vum6erDuUm0As5yU+VxWA',
  },
  {
    description: 'Kratos form, ln holds N (Kratos test suite)',
    password: 'test',
    hash: '$scrypt$ln=16384,r=8,p=1$2npRo7P03Mt8keSoMbyD/tKFWyUzjiQf2svUaNDSrhA=$MiCzNcIplSMqSBrm4HckjYqYhaVPPjTARTzwB1cVNYE=',
  },
  {
    description: 'Werkzeug (a script calling werkzeug.security.check_password_hash)',
    password: '123456',
    hash: 'scrypt:32768:8:1$yvEVXgVQfLiMO5Ft$fd7571ea830ceaad17d20e23fbc3e618d69d1059a66335bdd75e2e67b6db38d6b18f919a2e5992772b554197bf49fc687254b3ccdb463e4d70df4eecccd80a05',
  },
  {
    description: 'Django (Django test suite)',
    password: 'lètmein',
    hash: 'scrypt$16384$seasalt$8$1$Qj3+9PPyRjSJIebHnG81TMjsqtaIGxNQG/aEB/NYafTJ7tibgfYz71m0ldQESkXFRkdVCBhhY8mx7rQwite/Pw==',
  },
];
const VECTORS = [...PUBLISHED, ...independentVectors('SCRYPT')];

async function verify(password: string, hash: string): Promise<boolean | string> {
  const parsed = scryptFormat.parse(hash);
  return parsed.ok ? scryptFormat.verify(password, parsed.value, {}) : parsed.reason;
}

describe('standard scrypt', () => {
  it('has independent vectors for every grammar', () => {
    expect(independentVectors('SCRYPT').map(({ description }) => description)).toEqual([
      'passlib scrypt',
      'Kratos form (ln holds N)',
      'Werkzeug scrypt',
      'Django scrypt',
    ]);
  });

  it.each(VECTORS)('$description: the password matches, a wrong one does not', async ({ password, hash }) => {
    expect(scryptFormat.hasPrefix(hash)).toBe(true);
    expect(await verify(password, hash)).toBe(true);
    expect(await verify(password.slice(0, -1), hash)).toBe(false);
  });

  it("RFC 7914's first vector (empty password, empty salt, N=16, r=1, p=1) in passlib's PHC form matches", async () => {
    const hash = '$scrypt$ln=4,r=1,p=1$$d9ZXYjhleyA7GcpCwYoEl/FrSETjB0ro39/6P+3iFEL80Aad7QlI+DJqdToPyB8X6NPg+y4NNijPNeIMONGJBg';
    expect(parseScrypt(hash, DEFAULT_COST_LIMITS).ok).toBe(true);
    expect(await verify('', hash)).toBe(true);
    expect(await verify(' ', hash)).toBe(false);
  });

  it('one changed hex digit of a Werkzeug hash does not match', async () => {
    const { password, hash } = PUBLISHED[2];
    expect(await verify(password, hash.slice(0, -1) + (hash.endsWith('5') ? '6' : '5'))).toBe(false);
  });

  it('reads ln as log2(N) up to 31 and as N itself from 32 (the Kratos quirk)', () => {
    const passlib = parseScrypt(PUBLISHED[0].hash);
    const kratos = parseScrypt(PUBLISHED[1].hash);
    expect([passlib.ok && passlib.value.n, kratos.ok && kratos.value.n]).toEqual([256, 16384]);
  });

  const SALT = 'wlhLyXmP8b53bm1NKYVQqg';
  const KEY = 'mTpvG8lzuuDk+DWz8HZIB6Vum6erDuUm0As5yU+VxWA';
  it.each([
    {
      description: 'unknown shape',
      hash: '$scrypt$n=8$abc',
      reason:
        'expected $scrypt$ln=<log2 N or N>,r=<r>,p=<p>$<salt>$<hash>, scrypt:<N>:<r>:<p>$<salt>$<hex> or scrypt$<N>$<salt>$<r>$<p>$<hash>',
    },
    {
      description: 'ln that is neither',
      hash: `$scrypt$ln=1000,r=8,p=1$${SALT}$${KEY}`,
      reason: 'ln=1000 is neither log2(N) (up to 31) nor a power of two (Kratos writes N)',
    },
    {
      description: 'N over 2^20',
      hash: `$scrypt$ln=21,r=8,p=1$${SALT}$${KEY}`,
      reason: 'N must be a power of two from 2 to 2^20, got 2097152',
    },
    { description: 'r over 32', hash: `$scrypt$ln=8,r=33,p=1$${SALT}$${KEY}`, reason: 'r must be at most 32' },
    { description: 'p over 16', hash: `$scrypt$ln=8,r=8,p=17$${SALT}$${KEY}`, reason: 'p must be at most 16' },
    {
      description: 'r=0',
      hash: `$scrypt$ln=8,r=0,p=1$${SALT}$${KEY}`,
      reason: 'N, r and p must be positive decimal integers without leading zeros',
    },
    {
      description: 'hash lost a character',
      hash: `$scrypt$ln=8,r=8,p=1$${SALT}$${KEY.slice(0, -1)}`,
      reason: 'salt and hash must be canonical base64',
    },
    {
      description: 'hash of 8 bytes',
      hash: `$scrypt$ln=8,r=8,p=1$${SALT}$AAAAAAAAAAA`,
      reason: 'hash must be 16 to 128 bytes, got 8 (truncated?)',
    },
    {
      description: 'Werkzeug hash truncated',
      hash: PUBLISHED[2].hash.slice(0, -2),
      reason: 'Werkzeug hash must be 128 lower-case hex characters, got 126',
    },
    {
      description: 'Django N not a power of two',
      hash: PUBLISHED[3].hash.replace('16384', '16000'),
      reason: 'N must be a power of two from 2 to 2^20, got 16000',
    },
  ])('refuses $description', ({ hash, reason }) => {
    const parsed = parseScrypt(hash);
    expect(parsed.ok ? 'accepted' : parsed.reason).toBe(reason);
  });

  it('bounds 128·N·r·p at import, naming the key', () => {
    expect(parseScrypt(`$scrypt$ln=17,r=8,p=2$${SALT}$${KEY}`, DEFAULT_COST_LIMITS)).toEqual({
      ok: false,
      reason: '128 · N · r · p = 262144 KiB is over the limit of 131072 KiB (raise imported_hash_max_memory_kib to accept it)',
      recognised: true,
    });
    expect(parseScrypt(`$scrypt$ln=17,r=8,p=1$${SALT}$${KEY}`, DEFAULT_COST_LIMITS).ok).toBe(true);
  });

  it('reports the memory of one verification', () => {
    const parsed = parseScrypt(PUBLISHED[2].hash);
    expect(parsed.ok && scryptFormat.memoryBytes(parsed.value)).toBe(128 * 32768 * 8 + 1024 * 1024);
  });
});
