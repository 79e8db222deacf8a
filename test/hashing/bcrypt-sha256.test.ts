import { describe, expect, it } from 'vitest';
import { bcryptSha256Format, parseBcryptSha256 } from '../../src/hashing/bcrypt-sha256.js';
import { DEFAULT_COST_LIMITS } from '../../src/hashing/cost-limits.js';
import { independentVectors } from './independent/modern-vectors.js';

const PUBLISHED = [
  {
    description: 'Django bcrypt_sha256 (passlib test suite, made with Django 1.6)',
    password: 'lètmein',
    hash: 'bcrypt_sha256$$2a$08$NDjSAIcas.EcoxCRiArvT.MkNiPYVhrsrnJsRkLueZOoV1bsQqlmC',
  },
  {
    description: 'passlib v2 (passlib test suite)',
    password: 'password',
    hash: '$bcrypt-sha256$v=2,t=2b,r=5$5Hg1DKFqPE8C2aflZ5vVoe$wOK1VFFtS8IGTrGa7.h5fs0u84qyPbS',
  },
];
const VECTORS = [...PUBLISHED, ...independentVectors('BCRYPT_SHA256')];

async function verify(password: string, hash: string): Promise<boolean | string> {
  const parsed = bcryptSha256Format.parse(hash);
  return parsed.ok ? bcryptSha256Format.verify(password, parsed.value, {}) : parsed.reason;
}

describe('bcrypt-sha256', () => {
  it('has independent vectors for every form', () => {
    expect(independentVectors('BCRYPT_SHA256').map(({ description }) => description)).toEqual([
      'passlib bcrypt_sha256 v2',
      'passlib bcrypt_sha256 v2, 75 characters',
      'passlib bcrypt_sha256 v1',
      'passlib django_bcrypt_sha256',
    ]);
  });

  it.each(VECTORS)('$description: the password matches, a wrong one does not', async ({ password, hash }) => {
    expect(await verify(password, hash)).toBe(true);
    expect(await verify(password + '!', hash)).toBe(false);
  });

  it('tells apart passwords that agree on their first 72 characters, which plain bcrypt cannot', async () => {
    const long = independentVectors('BCRYPT_SHA256').find(({ description }) => description.includes('75 characters'))!;
    expect(await verify('x'.repeat(75), long.hash)).toBe(true);
    expect(await verify('x'.repeat(72), long.hash)).toBe(false);
    expect(await verify('x'.repeat(74), long.hash)).toBe(false);
  });

  it.each([
    {
      description: 'unknown passlib form',
      hash: '$bcrypt-sha256$v=3,t=2b,r=5$5Hg1DKFqPE8C2aflZ5vVoe$wOK1VFFtS8IGTrGa7.h5fs0u84qyPbS',
      reason: /^expected bcrypt_sha256\$/,
    },
    {
      description: 'v2 with a leading zero cost',
      hash: '$bcrypt-sha256$v=2,t=2b,r=05$5Hg1DKFqPE8C2aflZ5vVoe$wOK1VFFtS8IGTrGa7.h5fs0u84qyPbS',
      reason: /^expected bcrypt_sha256\$/,
    },
    {
      description: 'v2 checksum cut short',
      hash: '$bcrypt-sha256$v=2,t=2b,r=5$5Hg1DKFqPE8C2aflZ5vVoe$wOK1VFFtS8IGTrGa7.h5fs0u84qyPb',
      reason: /^expected bcrypt_sha256\$/,
    },
    {
      description: 'v2 cost 3',
      hash: '$bcrypt-sha256$v=2,t=2b,r=3$5Hg1DKFqPE8C2aflZ5vVoe$wOK1VFFtS8IGTrGa7.h5fs0u84qyPbS',
      reason: /^the bcrypt part: cost must be between 04 and 31$/,
    },
    {
      description: 'Django inner hash truncated',
      hash: PUBLISHED[0].hash.slice(0, -2),
      reason: /^the bcrypt part: salt and hash must be exactly 53 characters, got 51$/,
    },
  ])('refuses $description', ({ hash, reason }) => {
    const parsed = parseBcryptSha256(hash);
    expect(parsed.ok ? 'accepted' : parsed.reason).toMatch(reason);
  });

  it('holds the bcrypt cost bound at import, naming the key', () => {
    const parsed = parseBcryptSha256(
      '$bcrypt-sha256$v=2,t=2b,r=14$5Hg1DKFqPE8C2aflZ5vVoe$wOK1VFFtS8IGTrGa7.h5fs0u84qyPbS',
      DEFAULT_COST_LIMITS,
    );
    expect(parsed.ok ? 'accepted' : parsed.reason).toBe(
      'the bcrypt part: cost = 14 is over the limit of 13 (raise imported_hash_max_bcrypt_cost to accept it)',
    );
  });
});
