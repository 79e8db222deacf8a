import { describe, expect, it } from 'vitest';
import { DEFAULT_COST_LIMITS } from '../../src/hashing/cost-limits.js';
import { parsePbkdf2, pbkdf2Format } from '../../src/hashing/pbkdf2.js';
import { independentVectors } from './independent/modern-vectors.js';

// The published vectors of each grammar, with where they come from.
const PUBLISHED = [
  {
    description: 'passlib $pbkdf2-sha256$ (passlib test suite)',
    password: 'password',
    hash: '$pbkdf2-sha256$1212$4vjV83LKPjQzk31VI4E0Vw$hsYF68OiOUPdDZ1Fg.fJPeq1h/gXXY7acBp9/6c.tmQ',
  },
  {
    description: 'passlib {PBKDF2} LDAP wrapper (passlib test suite)',
    password: 'password',
    hash: '{PBKDF2}1212$OB.dtnSEXZK8U5cgxU/GYQ$y5LKPOplRmok7CZp/aqVDVg8zGI',
  },
  {
    description: 'PHC as Kratos writes it (Kratos test suite)',
    password: 'test',
    hash: '$pbkdf2-sha256$i=100000,l=32$1jP+5Zxpxgtee/iPxGgOz0RfE9/KJuDElP1ley4VxXc$QJxzfvdbHYBpydCbHoFg3GJEqMFULwskiuqiJctoYpI',
  },
  {
    description: 'Keycloak credential mapped to PHC (published incident write-up)',
    password: 'Kc8xL2mNp9Qr4vWy7zBf3jHa5dGe6tRu',
    hash: '$pbkdf2-sha256$i=27500,l=32$5Gi6jmiSgVj624ODftgGSw==$L4+4C3PodzGy43+hTbKmCED25RzQXmiYpOROnMK4jRg=',
  },
  {
    description: 'Django pbkdf2_sha256 (Django test suite)',
    password: 'lètmein',
    hash: 'pbkdf2_sha256$390000$seasalt$8xBlGd3jVgvJ+92hWPxi5ww0uuAuAnKgC45eudxro7c=',
  },
  {
    description: 'Werkzeug pbkdf2:sha256 (Go port of werkzeug.security, its test)',
    password: '123456',
    hash: 'pbkdf2:sha256:150000$iuAaxWvA$2f3831dc844683f87cd94786bb64c939d709f5a0518e0168bce150a19cc02f27',
  },
  {
    description: 'Atlassian {PKCS5S2} (passlib test suite, made by Jira)',
    password: 'admin',
    hash: '{PKCS5S2}c4xaeTQM0lUieMS3V5voiexyX9XhqC2dBd5ecVy60IPksHChwoTAVYFrhsgoq8/p',
  },
];
const VECTORS = [...PUBLISHED, ...independentVectors('PBKDF2')];

async function verify(password: string, hash: string): Promise<boolean | string> {
  const parsed = pbkdf2Format.parse(hash);
  return parsed.ok ? pbkdf2Format.verify(password, parsed.value, {}) : parsed.reason;
}

/** Changes one character of the derived key's text so it still parses. */
function flipKey(hash: string): string {
  const at = hash.length - 3;
  const swap: Record<string, string> = { a: 'b', b: 'a', A: 'B', B: 'A', '0': '1', '1': '0' };
  const replacement = swap[hash[at]] ?? (hash[at] === 'c' ? 'd' : 'c');
  return hash.slice(0, at) + replacement + hash.slice(at + 1);
}

describe('PBKDF2 family', () => {
  it('has independent vectors for every grammar', () => {
    expect(independentVectors('PBKDF2').map(({ description }) => description)).toEqual([
      'passlib pbkdf2_sha256',
      'passlib pbkdf2_sha512',
      'passlib pbkdf2_sha1',
      'passlib ldap_pbkdf2_sha256',
      'passlib atlassian_pbkdf2_sha1',
      'passlib django_pbkdf2_sha256',
      'passlib django_pbkdf2_sha1',
      'PHC pbkdf2-sha256',
      'PHC pbkdf2-sha512',
      'PHC pbkdf2-sha1',
      'PHC pbkdf2-sha3-256',
      'Werkzeug pbkdf2:sha256',
      'Werkzeug pbkdf2:sha512',
    ]);
  });

  it.each(VECTORS)('$description: the password matches', async ({ password, hash }) => {
    expect(pbkdf2Format.hasPrefix(hash)).toBe(true);
    expect(await verify(password, hash)).toBe(true);
  });

  it.each(VECTORS)('$description: a wrong password does not', async ({ password, hash }) => {
    expect(await verify(password + 'x', hash)).toBe(false);
  });

  it.each(VECTORS)('$description: one changed character of the hash does not', async ({ password, hash }) => {
    const flipped = flipKey(hash);
    const parsed = pbkdf2Format.parse(flipped);
    // A change in the unused bits of the last base64 character is refused as non-canonical instead.
    expect(parsed.ok ? await pbkdf2Format.verify(password, parsed.value, {}) : false).toBe(false);
  });

  it('flags fewer than 10,000 iterations as weak', () => {
    const weak = parsePbkdf2(PUBLISHED[0].hash);
    const strong = parsePbkdf2(PUBLISHED[2].hash);
    expect([weak.ok && pbkdf2Format.isWeak!(weak.value), strong.ok && pbkdf2Format.isWeak!(strong.value)]).toEqual([true, false]);
  });

  const KRATOS_SALT = '1jP+5Zxpxgtee/iPxGgOz0RfE9/KJuDElP1ley4VxXc';
  const KRATOS_KEY = 'QJxzfvdbHYBpydCbHoFg3GJEqMFULwskiuqiJctoYpI';
  it.each([
    { description: 'unknown shape', hash: '$pbkdf2-sha256$abc', reason: /^expected \$pbkdf2-<digest>/ },
    {
      description: 'PHC sha224 is ambiguous',
      hash: `$pbkdf2-sha224$i=1000,l=32$${KRATOS_SALT}$${KRATOS_KEY}`,
      reason: '$pbkdf2-sha224$ is ambiguous (Kratos means SHA3, others SHA-2): write sha3-224 or use a SHA-2 form',
    },
    {
      description: 'PHC md5',
      hash: `$pbkdf2-md5$i=1000,l=32$${KRATOS_SALT}$${KRATOS_KEY}`,
      reason: 'digest must be one of sha1, sha256, sha512, sha3-224, sha3-256, sha3-384, sha3-512',
    },
    {
      description: 'PHC l disagrees',
      hash: `$pbkdf2-sha256$i=1000,l=31$${KRATOS_SALT}$${KRATOS_KEY}`,
      reason: 'l=31 must equal the decoded hash length, 32 bytes',
    },
    {
      description: 'PHC key lost a character',
      hash: `$pbkdf2-sha256$i=1000,l=32$${KRATOS_SALT}$${KRATOS_KEY.slice(0, -1)}`,
      reason: 'PHC salt and hash must be canonical base64',
    },
    {
      description: 'iterations with a leading zero',
      hash: `$pbkdf2-sha256$i=01000,l=32$${KRATOS_SALT}$${KRATOS_KEY}`,
      reason: 'iterations must be a decimal integer without leading zeros',
    },
    {
      description: 'iterations over the hard limit',
      hash: `$pbkdf2-sha256$i=10000001,l=32$${KRATOS_SALT}$${KRATOS_KEY}`,
      reason: 'iterations must be at most 10000000',
    },
    {
      description: 'passlib with + instead of .',
      hash: '$pbkdf2-sha256$1212$4vjV83LKPjQzk31VI4E0Vw$hsYF68OiOUPdDZ1Fg+fJPeq1h/gXXY7acBp9/6c.tmQ',
      reason: 'passlib salt and hash must be canonical unpadded base64 with . for +',
    },
    {
      description: 'Django hash truncated',
      hash: 'pbkdf2_sha256$390000$seasalt$8xBlGd3jVgvJ+92hWPxi5ww0uuAuAnKgC45eudxr',
      reason: 'Django sha256 hash must be 32 bytes, got 30 (truncated?)',
    },
    {
      description: 'Werkzeug upper-case hex',
      hash: 'pbkdf2:sha256:150000$iuAaxWvA$2F3831DC844683F87CD94786BB64C939D709F5A0518E0168BCE150A19CC02F27',
      reason: 'Werkzeug hash must be lower-case hex',
    },
    {
      description: 'Werkzeug without iterations',
      hash: 'pbkdf2:sha256$iuAaxWvA$2f3831dc844683f87cd94786bb64c939d709f5a0518e0168bce150a19cc02f27',
      reason: /^expected/,
    },
    {
      description: '{PKCS5S2} short',
      hash: '{PKCS5S2}c4xaeTQM0lUieMS3V5voiexyX9XhqC2dBd5ecVy60IPksHChwoTAVYFr',
      reason: '{PKCS5S2} must be padded base64 of 48 bytes (16-byte salt, 32-byte key)',
    },
  ])('refuses $description', ({ hash, reason }) => {
    const parsed = parsePbkdf2(hash);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toMatch(typeof reason === 'string' ? new RegExp(`^${escape(reason)}$`) : reason);
  });

  it('bounds iterations × output blocks at import, naming the key', () => {
    const sha1In64 = parsePbkdf2(
      `$pbkdf2-sha1$i=400000,l=64$${KRATOS_SALT}$${Buffer.alloc(64, 1).toString('base64')}`,
      DEFAULT_COST_LIMITS,
    );
    expect(sha1In64).toEqual({
      ok: false,
      reason: 'iterations × output blocks = 1600000 is over the limit of 1500000 (raise imported_hash_max_pbkdf2_iterations to accept it)',
      recognised: true,
    });
    expect(parsePbkdf2(`$pbkdf2-sha256$i=1500000,l=32$${KRATOS_SALT}$${KRATOS_KEY}`, DEFAULT_COST_LIMITS).ok).toBe(true);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
