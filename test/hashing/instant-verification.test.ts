import { pbkdf2Sync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InstantHashes } from '../../src/hashing/instant-hashes.js';
import { PasswordHasher, type HashingOptions } from '../../src/hashing/registry.js';
import { HMAC_VECTORS, LDAP_VECTORS, SALTED_DIGEST_VECTORS, SHA512_CRYPT_656000 } from './legacy-vectors.js';

// One-digest hashes (class INSTANT) skip the scheduler; what has rounds or iterations keeps waiting for it, decided
// from the parsed parameters: an LDAP value is instant as {SSHA} and scheduled as {CRYPT} with 656,000 rounds.
const OPTIONS: HashingOptions = {
  newHashAlgorithm: 'BCRYPT',
  bcryptLogRounds: 4,
  argon2: { iterations: 1, memoryKb: 64, parallelism: 1 },
  argon2PoolSize: 1,
  scryptPoolSize: 1,
  bcryptPoolSize: 1,
  scheduling: { concurrency: 1, memoryBudgetBytes: 64 * 1024 * 1024, queueLimit: 1, deadlineMs: 60_000 },
};

const INSTANT = [LDAP_VECTORS[0], LDAP_VECTORS[3], SALTED_DIGEST_VECTORS[0], SALTED_DIGEST_VECTORS[1], HMAC_VECTORS[0]];
const LDAP_656000 = {
  ...SHA512_CRYPT_656000,
  description: '{CRYPT} sha512-crypt rounds=656000',
  hash: `{CRYPT}${SHA512_CRYPT_656000.hash}`,
};
const salt = Buffer.from('NaCl-high-iterations');
const PBKDF2_600000 = {
  description: 'Django PBKDF2-SHA256, 600,000 iterations',
  password: 'right',
  hash: `pbkdf2_sha256$600000$${salt.toString()}$${pbkdf2Sync('right', salt, 600_000, 32, 'sha256').toString('base64')}`,
};

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('instant verification', () => {
  it.each(INSTANT)('$description is verified at once, without a scheduler slot or single flight', async ({ password, hash }) => {
    const hasher = new PasswordHasher(OPTIONS);
    const outcomes = await Promise.all([
      hasher.verify(password, hash),
      hasher.verify(password, hash),
      hasher.verify(`${password}x`, hash),
      hasher.verify(password, hash),
    ]);
    expect(outcomes).toEqual(['MATCH', 'MATCH', 'NO_MATCH', 'MATCH']);
    expect([hasher.scheduler.startedCount, hasher.scheduler.sharedCount]).toEqual([0, 0]);
  });

  it.each([LDAP_656000, PBKDF2_600000])(
    '$description waits for the scheduler, and identical requests share one run',
    async ({ password, hash }) => {
      const hasher = new PasswordHasher(OPTIONS);
      const first = hasher.verify(password, hash);
      expect(hasher.queueStates().BCRYPT).toEqual({ running: 1, queued: 0 });
      const outcomes = await Promise.all([first, hasher.verify(password, hash)]);
      expect(outcomes).toEqual(['MATCH', 'MATCH']);
      expect([hasher.scheduler.startedCount, hasher.scheduler.sharedCount]).toEqual([1, 1]);
    },
    60_000,
  );

  it('a full queue refuses scheduled verifications but not instant ones; a stopping scheduler refuses both', async () => {
    const hasher = new PasswordHasher(OPTIONS);
    const [{ password, hash }, crypt] = [LDAP_VECTORS[0], LDAP_VECTORS.find((vector) => vector.hash.startsWith('{CRYPT}$1$'))!];
    const blocker = gate();
    const blocked = hasher.scheduler.schedule({ lane: 'other', kind: 'BCRYPT', memoryBytes: 0, run: () => blocker.promise });
    const queued = hasher.verify(crypt.password, crypt.hash);

    await expect(hasher.verify('another guess', crypt.hash)).rejects.toMatchObject({ statusCode: 503 });
    expect(await hasher.verify(password, hash)).toBe('MATCH');
    expect([hasher.scheduler.queueFullRejections, hasher.scheduler.queueDepth]).toEqual([1, 1]);

    hasher.scheduler.stop();
    await expect(hasher.verify(password, hash)).rejects.toMatchObject({ statusCode: 503 });
    await expect(queued).rejects.toMatchObject({ statusCode: 503 });
    blocker.open();
    await blocked;
  });
});

describe('InstantHashes', () => {
  const entry = { format: {} as never, parsed: 1 };

  it('keeps at most its capacity, dropping the oldest entry first', () => {
    const cache = new InstantHashes(2);
    for (const key of ['a', 'b', 'c']) cache.remember(key, entry);
    expect([cache.size, cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([2, undefined, entry, entry]);
    cache.remember('c', entry);
    expect([cache.size, cache.get('b')]).toEqual([2, entry]);
  });

  it('keeps nothing at capacity 0 and refuses a capacity that is not a count', () => {
    const cache = new InstantHashes(0);
    cache.remember('a', entry);
    expect([cache.size, cache.get('a')]).toEqual([0, undefined]);
    expect(() => new InstantHashes(-1)).toThrow('capacity must be a non-negative integer, got -1');
  });
});
