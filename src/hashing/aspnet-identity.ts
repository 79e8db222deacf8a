import { fail, overCostLimit, type HashCostLimits, type HashFormat, type ParseResult, scheduledOrCostly } from './format.js';
import { COSTLY_FROM } from './cost-limits.js';
import { pbkdf2Work } from './pbkdf2.js';
import { PBKDF2_LIMITS, verifyPbkdf2, type Pbkdf2Hash } from './pbkdf2.js';
import type { Pbkdf2Digest } from './pbkdf2-grammars.js';
import { decodePaddedCanonicalBase64 } from '../base64.js';

/**
 * ASP.NET Core Identity's `PasswordHash` column is a bare base64 blob; stored here as `$aspnet-identity$<blob>` so
 * the string says how to verify it. Importing the bare blob with hashingAlgorithm ASPNET_IDENTITY adds the prefix.
 */
export const ASPNET_PREFIX = '$aspnet-identity$';

// The v3 header's PRF numbers (KeyDerivationPrf in the framework).
const PRFS: readonly Pbkdf2Digest[] = ['sha1', 'sha256', 'sha512'];
const V2 = { bytes: 49, saltBytes: 16, iterations: 1000 } as const;
const V3_HEADER_BYTES = 13;
const MIN_SALT_BYTES = 16;
const MIN_SUBKEY_BYTES = 16;
const DIGEST_BYTES: Readonly<Record<string, number>> = { sha1: 20, sha256: 32, sha512: 64 };
// NIST SP 800-132's 10,000 iterations; v2 (PBKDF2-SHA1 with 1,000) is below it.
const WEAK_BELOW_ITERATIONS = 10_000;

export function parseAspnetIdentity(hash: string, limits?: HashCostLimits): ParseResult<Pbkdf2Hash> {
  if (!hash.startsWith(ASPNET_PREFIX)) {
    return fail(`must start with ${ASPNET_PREFIX}, or be the bare blob with hashingAlgorithm aspnet_identity`);
  }
  const blob = decodePaddedCanonicalBase64(hash.slice(ASPNET_PREFIX.length));
  if (!blob) return fail('the blob must be canonical padded base64');
  if (blob[0] === 0x00) {
    if (blob.length !== V2.bytes) return fail(`a version 2 blob is exactly ${V2.bytes} bytes, got ${blob.length}`, true);
    const salt = blob.subarray(1, 1 + V2.saltBytes);
    return { ok: true, value: { digest: 'sha1', iterations: V2.iterations, salt, key: blob.subarray(1 + V2.saltBytes) } };
  }
  if (blob[0] !== 0x01) return fail(`unknown version byte ${blob[0]} (ASP.NET Identity writes 0 or 1)`, true);
  if (blob.length < V3_HEADER_BYTES) {
    return fail(`a version 3 blob needs its ${V3_HEADER_BYTES}-byte header, got ${blob.length} bytes`, true);
  }
  const digest = PRFS[blob.readUInt32BE(1)];
  if (!digest) return fail(`unknown PRF ${blob.readUInt32BE(1)} (0 = SHA1, 1 = SHA256, 2 = SHA512)`, true);
  const iterations = blob.readUInt32BE(5);
  const saltLength = blob.readUInt32BE(9);
  if (iterations < 1 || iterations > PBKDF2_LIMITS.maxIterations) {
    return fail(`iterations must be 1 to ${PBKDF2_LIMITS.maxIterations}, got ${iterations}`, true);
  }
  if (saltLength < MIN_SALT_BYTES) return fail(`salt length must be at least ${MIN_SALT_BYTES}, got ${saltLength}`, true);
  const subkeyLength = blob.length - V3_HEADER_BYTES - saltLength;
  if (subkeyLength < MIN_SUBKEY_BYTES || subkeyLength > PBKDF2_LIMITS.maxKeyBytes) {
    const range = `${MIN_SUBKEY_BYTES} to ${PBKDF2_LIMITS.maxKeyBytes} bytes`;
    return fail(`the subkey after a ${saltLength}-byte salt must be ${range}, got ${subkeyLength} (truncated?)`, true);
  }
  const work = iterations * Math.ceil(subkeyLength / DIGEST_BYTES[digest]);
  if (limits && work > limits.maxPbkdf2Iterations) return overCostLimit('iterations × output blocks', work, limits, 'maxPbkdf2Iterations');
  const salt = blob.subarray(V3_HEADER_BYTES, V3_HEADER_BYTES + saltLength);
  return { ok: true, value: { digest, iterations, salt, key: blob.subarray(V3_HEADER_BYTES + saltLength) } };
}

export const aspnetIdentityFormat: HashFormat<Pbkdf2Hash> = {
  id: 'ASPNET_IDENTITY',
  aliases: [],
  invalidMessage: 'Password hash is in invalid ASP.NET Identity format',
  needsSignerKey: false,
  pool: 'BCRYPT',
  hasPrefix: (hash) => hash.startsWith(ASPNET_PREFIX),
  fromExport: (hash) => ASPNET_PREFIX + hash,
  parse: parseAspnetIdentity,
  verify: verifyPbkdf2,
  memoryBytes: () => 4 * 1024,
  costClass: (parsed) => scheduledOrCostly(pbkdf2Work(parsed) >= COSTLY_FROM.pbkdf2Work),
  isWeak: (parsed) => parsed.iterations < WEAK_BELOW_ITERATIONS,
};
