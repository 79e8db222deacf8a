import { describe, expect, it } from 'vitest';
import { aspnetIdentityFormat, parseAspnetIdentity } from '../../src/hashing/aspnet-identity.js';
import { DEFAULT_COST_LIMITS } from '../../src/hashing/cost-limits.js';
import { PasswordHasher } from '../../src/hashing/registry.js';
import { describeUnknownHash } from '../../src/hashing/unknown-hash.js';
import { independentVectors } from './independent/modern-vectors.js';

// dotnet/aspnetcore src/Identity/test/Identity.Test/PasswordHasherTest.cs (HashPassword_Version3, _Version2).
const PUBLISHED = [
  {
    description: 'v3 (ASP.NET Core test suite)',
    password: 'my password',
    hash: 'AQAAAAEAACcQAAAAEAABAgMEBQYHCAkKCwwNDg+yWU7rLgUwPZb1Itsmra7cbxw2EFpwpVFIEtP+JIuUEw==',
  },
  {
    description: 'v2 (ASP.NET Core test suite)',
    password: 'my password',
    hash: 'AAABAgMEBQYHCAkKCwwNDg+ukCEMDf0yyQ29NYubggHIVY0sdEUfdyeM+E1LtH1uJg==',
  },
];
const VECTORS = [...PUBLISHED, ...independentVectors('ASPNET_IDENTITY')];
const prefixed = (blob: string) => `$aspnet-identity$${blob}`;

async function verify(password: string, blob: string): Promise<boolean | string> {
  const parsed = aspnetIdentityFormat.parse(prefixed(blob));
  return parsed.ok ? aspnetIdentityFormat.verify(password, parsed.value, {}) : parsed.reason;
}

function blobWith(changes: (blob: Buffer) => Buffer): string {
  return changes(Buffer.from(PUBLISHED[0].hash, 'base64')).toString('base64');
}

describe('ASP.NET Core Identity', () => {
  it('has independent vectors for v2 and v3', () => {
    expect(independentVectors('ASPNET_IDENTITY').map(({ description }) => description)).toEqual([
      'v2 blob',
      'v3 blob sha256 10000',
      'v3 blob sha512 20000',
    ]);
  });

  it.each(VECTORS)('$description: the password matches, a wrong one does not', async ({ password, hash }) => {
    expect(await verify(password, hash)).toBe(true);
    expect(await verify(password.toUpperCase(), hash)).toBe(false);
  });

  it('a bare blob imported with hashingAlgorithm aspnet_identity is stored with its prefix', () => {
    const hasher = new PasswordHasher({
      newHashAlgorithm: 'BCRYPT',
      bcryptLogRounds: 4,
      argon2: { iterations: 1, memoryKb: 64, parallelism: 1 },
      argon2PoolSize: 1,
      scryptPoolSize: 1,
      bcryptPoolSize: 1,
    });
    const blob = PUBLISHED[0].hash;
    expect(hasher.checkImport(blob, 'Aspnet_Identity')).toEqual({ status: 'OK', hash: prefixed(blob), algorithm: 'ASPNET_IDENTITY' });
    expect(hasher.checkImport(prefixed(blob))).toEqual({ status: 'OK', hash: prefixed(blob), algorithm: 'ASPNET_IDENTITY' });
    expect(hasher.checkImport(blob)).toEqual({
      status: 'INVALID',
      stage: 'FORMAT',
      message: 'Password hash is in invalid format: this looks like an ASP.NET Identity blob: set hashingAlgorithm to aspnet_identity',
    });
  });

  it('hints at the algorithm for a bare v2 blob too', () => {
    expect(describeUnknownHash(PUBLISHED[1].hash)).toBe(
      'this looks like an ASP.NET Identity blob: set hashingAlgorithm to aspnet_identity',
    );
  });

  it.each([
    { description: 'not base64', blob: 'AQAAAA!!', reason: 'the blob must be canonical padded base64' },
    {
      description: 'unknown version',
      blob: blobWith((b) => Buffer.concat([Buffer.from([2]), b.subarray(1)])),
      reason: 'unknown version byte 2 (ASP.NET Identity writes 0 or 1)',
    },
    {
      description: 'unknown PRF',
      blob: blobWith((b) => (b.writeUInt32BE(3, 1), b)),
      reason: 'unknown PRF 3 (0 = SHA1, 1 = SHA256, 2 = SHA512)',
    },
    {
      description: 'zero iterations',
      blob: blobWith((b) => (b.writeUInt32BE(0, 5), b)),
      reason: 'iterations must be 1 to 10000000, got 0',
    },
    {
      description: 'salt under 16 bytes',
      blob: blobWith((b) => (b.writeUInt32BE(8, 9), b)),
      reason: 'salt length must be at least 16, got 8',
    },
    {
      description: 'truncated subkey',
      blob: blobWith((b) => b.subarray(0, 13 + 16 + 12)),
      reason: 'the subkey after a 16-byte salt must be 16 to 64 bytes, got 12 (truncated?)',
    },
    {
      description: 'v2 with a trailing byte',
      blob: Buffer.concat([Buffer.from(PUBLISHED[1].hash, 'base64'), Buffer.from([0])]).toString('base64'),
      reason: 'a version 2 blob is exactly 49 bytes, got 50',
    },
  ])('refuses $description', ({ blob, reason }) => {
    const parsed = parseAspnetIdentity(prefixed(blob));
    expect(parsed.ok ? 'accepted' : parsed.reason).toBe(reason);
  });

  it('bounds the iterations at import, naming the key', () => {
    const parsed = parseAspnetIdentity(prefixed(blobWith((b) => (b.writeUInt32BE(2_000_000, 5), b))), DEFAULT_COST_LIMITS);
    expect(parsed.ok ? 'accepted' : parsed.reason).toBe(
      'iterations × output blocks = 2000000 is over the limit of 1500000 (raise imported_hash_max_pbkdf2_iterations to accept it)',
    );
  });

  it('flags v2 (1,000 iterations of SHA1) as weak, not v3 with 10,000', () => {
    const [v3, v2] = PUBLISHED.map(({ hash }) => parseAspnetIdentity(prefixed(hash)));
    expect([v3.ok && aspnetIdentityFormat.isWeak!(v3.value), v2.ok && aspnetIdentityFormat.isWeak!(v2.value)]).toEqual([false, true]);
  });
});
