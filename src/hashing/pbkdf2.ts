import { pbkdf2 } from 'node:crypto';
import { equalInConstantTime } from './constant-time.js';
import { fail, overCostLimit, type HashCostLimits, type HashFormat, type ParseResult, scheduledOrCostly } from './format.js';
import { COSTLY_FROM } from './cost-limits.js';
import { digestBytes, hasPbkdf2Prefix, parsePbkdf2Grammar, type Pbkdf2Digest } from './pbkdf2-grammars.js';

export interface Pbkdf2Hash {
  digest: Pbkdf2Digest;
  iterations: number;
  salt: Buffer;
  key: Buffer;
}

// Hard limits, held at sign-in too. Kratos accepts up to 10,000,000 iterations; keys of 16 to 64 bytes cover every
// producer (passlib SHA-1 writes 20, Django and Werkzeug the digest size, Keycloak 32 or 64).
export const PBKDF2_LIMITS = { maxIterations: 10_000_000, minKeyBytes: 16, maxKeyBytes: 64, minSaltBytes: 1, maxSaltBytes: 1024 } as const;
// NIST SP 800-132 asks for at least 1,000 iterations and 10,000 where it matters; below that a hash is cheap to guess.
const WEAK_BELOW_ITERATIONS = 10_000;

export function parsePbkdf2(hash: string, limits?: HashCostLimits): ParseResult<Pbkdf2Hash> {
  const grammar = parsePbkdf2Grammar(hash);
  if (!grammar.ok) return fail(grammar.reason);
  const { digest, iterationsText, salt, key } = grammar.parts;
  if (!/^[1-9][0-9]{0,8}$/.test(iterationsText)) return fail('iterations must be a decimal integer without leading zeros', true);
  const iterations = Number(iterationsText);
  const { maxIterations, minKeyBytes, maxKeyBytes, minSaltBytes, maxSaltBytes } = PBKDF2_LIMITS;
  if (iterations > maxIterations) return fail(`iterations must be at most ${maxIterations}`, true);
  if (salt.length < minSaltBytes || salt.length > maxSaltBytes) {
    return fail(`salt must be ${minSaltBytes} to ${maxSaltBytes} bytes, got ${salt.length}`, true);
  }
  if (key.length < minKeyBytes || key.length > maxKeyBytes) {
    return fail(`hash must be ${minKeyBytes} to ${maxKeyBytes} bytes, got ${key.length} (truncated?)`, true);
  }
  const fixedLength = grammar.parts.grammar === 'Django' || grammar.parts.grammar === 'Werkzeug';
  if (fixedLength && key.length !== digestBytes(digest)) {
    return fail(`${grammar.parts.grammar} ${digest} hash must be ${digestBytes(digest)} bytes, got ${key.length} (truncated?)`, true);
  }
  const work = iterations * blocks(digest, key.length);
  if (limits && work > limits.maxPbkdf2Iterations) {
    return overCostLimit('iterations × output blocks', work, limits, 'maxPbkdf2Iterations');
  }
  return { ok: true, value: { digest, iterations, salt, key } };
}

/** What a verification costs in SHA-1/SHA-256 iterations, for the cost class. */
export function pbkdf2Work(parsed: Pbkdf2Hash): number {
  return parsed.iterations * blocks(parsed.digest, parsed.key.length) * (parsed.digest === 'sha512' ? 2 : 1);
}

/** Each digest-sized block of the derived key repeats every iteration. */
function blocks(digest: Pbkdf2Digest, keyLength: number): number {
  return Math.ceil(keyLength / digestBytes(digest));
}

export function verifyPbkdf2(password: string, parsed: Pbkdf2Hash): Promise<boolean> {
  const { digest, iterations, salt, key } = parsed;
  return new Promise((resolve, reject) => {
    pbkdf2(Buffer.from(password, 'utf8'), salt, iterations, key.length, digest, (error, derived) =>
      error ? reject(error) : resolve(equalInConstantTime(derived, key)),
    );
  });
}

export const pbkdf2Format: HashFormat<Pbkdf2Hash> = {
  id: 'PBKDF2',
  aliases: [],
  invalidMessage: 'Password hash is in invalid PBKDF2 format',
  needsSignerKey: false,
  pool: 'BCRYPT',
  hasPrefix: hasPbkdf2Prefix,
  parse: parsePbkdf2,
  verify: verifyPbkdf2,
  // Two HMAC states and one block: a few hundred bytes.
  memoryBytes: () => 4 * 1024,
  costClass: (parsed) => scheduledOrCostly(pbkdf2Work(parsed) >= COSTLY_FROM.pbkdf2Work),
  isWeak: (parsed) => parsed.iterations < WEAK_BELOW_ITERATIONS,
};
