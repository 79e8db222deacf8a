import { timingSafeEqual } from 'node:crypto';
import { createRequire } from 'node:module';
import type bcryptBinding from 'bcrypt';
import { fail, overCostLimit, type HashCostLimits, type HashFormat, type ParseResult, scheduledOrCostly } from './format.js';
import { COSTLY_FROM } from './cost-limits.js';

// The native binding is loaded on the first hash: the migration command reads this format without ever hashing.
let binding: typeof bcryptBinding | undefined;
const bcrypt = () => (binding ??= createRequire(import.meta.url)('bcrypt') as typeof bcryptBinding);

// bcrypt reads at most this many bytes of a password and ignores the rest.
const MAX_PASSWORD_BYTES = 72;

export function bcryptIgnoresPartOf(password: string): boolean {
  return Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES;
}

export interface BcryptHash {
  cost: number;
  /** The stored hash with its variant rewritten to `$2a`, which is what the native binding accepts. */
  normalised: string;
}

const PREFIXES = ['$2a', '$2b', '$2x', '$2y'];
const MIN_COST = 4;
const MAX_COST = 31;
const SALT_AND_HASH_LENGTH = 53;
/** `$2a$NN$` plus the 22 salt characters. */
const SALT_END = 29;
/** Blowfish's four S-boxes and P-array. */
const BLOWFISH_STATE_BYTES = 4 * 256 * 4 + 18 * 4;

export function parseBcrypt(hash: string, limits?: HashCostLimits): ParseResult<BcryptHash> {
  if (!/^\$2[abxy]\$/.test(hash)) return fail('must start with $2a$, $2b$, $2x$ or $2y$');
  const cost = hash.slice(4, 6);
  if (!/^\d\d$/.test(cost)) return fail('cost must be two digits');
  const rounds = Number(cost);
  if (rounds < MIN_COST || rounds > MAX_COST) return fail('cost must be between 04 and 31');
  if (hash[6] !== '$') return fail('cost must be followed by $');
  const rest = hash.slice(7);
  if (rest.length !== SALT_AND_HASH_LENGTH) {
    return fail(`salt and hash must be exactly 53 characters, got ${rest.length}`);
  }
  if (!/^[./A-Za-z0-9]*$/.test(rest)) return fail('salt and hash must use only the characters ./A-Za-z0-9');
  if (limits && rounds > limits.maxBcryptCost) return overCostLimit('cost', rounds, limits, 'maxBcryptCost');
  return { ok: true, value: { cost: rounds, normalised: '$2a' + hash.slice(3) } };
}

/** Below 4 the native binding silently uses 4; make that explicit so needsRehash agrees with it. */
export function effectiveBcryptCost(rounds: number): number {
  return Math.min(MAX_COST, Math.max(MIN_COST, rounds));
}

export function hashBcrypt(password: string, rounds: number): Promise<string> {
  return bcrypt().hash(password, effectiveBcryptCost(rounds));
}

export const bcryptFormat: HashFormat<BcryptHash> = {
  id: 'BCRYPT',
  aliases: [],
  invalidMessage: 'Password hash is in invalid BCrypt format',
  needsSignerKey: false,
  pool: 'BCRYPT',
  hasPrefix: (hash) => PREFIXES.some((prefix) => hash.startsWith(prefix)),
  parse: parseBcrypt,
  verify: verifyBcrypt,
  memoryBytes: () => BLOWFISH_STATE_BYTES,
  costClass: (parsed) => scheduledOrCostly(parsed.cost >= COSTLY_FROM.bcryptCost),
  writer: {
    hash: (password, params) => hashBcrypt(password, params.bcryptLogRounds),
    isCurrent: (parsed, params) => parsed.cost === effectiveBcryptCost(params.bcryptLogRounds),
  },
};

/**
 * The binding's compare() checks the result with strcmp, so instead we recompute with the stored
 * salt and compare in constant time. The binding encodes the password as UTF-8 and applies
 * bcrypt's 72-byte limit.
 */
export async function verifyBcrypt(password: string, parsed: BcryptHash): Promise<boolean> {
  const computed = Buffer.from(await bcrypt().hash(password, parsed.normalised.slice(0, SALT_END)));
  const stored = Buffer.from(parsed.normalised);
  return computed.length === stored.length && timingSafeEqual(computed, stored);
}
