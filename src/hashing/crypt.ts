import { CRYPT_CHARACTERS, hasZeroPaddingBits } from './crypt-base64.js';
import { equalTextInConstantTime } from './constant-time.js';
import { legacyPasswordBytes } from './legacy-password.js';
import { md5CryptChecksum } from './md5-crypt.js';
import { shaCryptChecksum } from './sha-crypt.js';
import { fail, overCostLimit, type HashCostLimits, type HashFormat, type ParseResult, scheduledOrCostly } from './format.js';
import { COSTLY_FROM } from './cost-limits.js';

export type CryptVariant = 'md5-crypt' | 'sha256-crypt' | 'sha512-crypt';

export interface CryptHash {
  variant: CryptVariant;
  rounds: number;
  salt: string;
  checksum: string;
}

interface VariantRules {
  maxSalt: number;
  checksumLength: number;
  checksumBits: number;
}

// Kratos writes the three variants with their names instead of the numbers.
const PREFIX = /^\$(1|5|6|md5-crypt|sha256-crypt|sha512-crypt)\$/;
const VARIANTS: Readonly<Record<string, CryptVariant>> = {
  '1': 'md5-crypt',
  'md5-crypt': 'md5-crypt',
  '5': 'sha256-crypt',
  'sha256-crypt': 'sha256-crypt',
  '6': 'sha512-crypt',
  'sha512-crypt': 'sha512-crypt',
};
const RULES: Readonly<Record<CryptVariant, VariantRules>> = {
  'md5-crypt': { maxSalt: 8, checksumLength: 22, checksumBits: 128 },
  'sha256-crypt': { maxSalt: 16, checksumLength: 43, checksumBits: 256 },
  'sha512-crypt': { maxSalt: 16, checksumLength: 86, checksumBits: 512 },
};

const MD5_CRYPT_ROUNDS = 1000;
/**
 * Drepper's specification: 5000 when `rounds=` is absent. libc raises values under 1000 to 1000 without saying
 * so, so a stored string below that cannot have come from it. passlib's defaults are 535,000 (sha256) and
 * 656,000 (sha512); the upper bound keeps one verification under a second of CPU (0.3 s at 656,000 rounds on its
 * worker thread, see cost-limits.ts); the import bound is lower.
 */
export const SHA_CRYPT_LIMITS = { defaultRounds: 5000, minRounds: 1000, maxRounds: 1_000_000 } as const;

export function hasCryptPrefix(hash: string): boolean {
  return PREFIX.test(hash);
}

export function parseCrypt(hash: string, limits?: HashCostLimits): ParseResult<CryptHash> {
  const match = PREFIX.exec(hash);
  if (!match) return fail('must start with $1$, $5$, $6$, $md5-crypt$, $sha256-crypt$ or $sha512-crypt$');
  const variant = VARIANTS[match[1]];
  const fields = hash.slice(match[0].length).split('$');
  if (variant === 'md5-crypt') {
    if (fields.length !== 2) return fail('md5-crypt must be $1$<salt>$<checksum>');
    return parseSaltAndChecksum(variant, MD5_CRYPT_ROUNDS, fields[0], fields[1]);
  }
  if (fields.length === 2) return parseSaltAndChecksum(variant, SHA_CRYPT_LIMITS.defaultRounds, fields[0], fields[1]);
  if (fields.length !== 3) return fail(`${variant} must be $${match[1]}$[rounds=<rounds>$]<salt>$<checksum>`);
  const rounds = parseRounds(variant, fields[0]);
  if (typeof rounds !== 'number') return rounds;
  if (limits && rounds > limits.maxCryptRounds) return overCostLimit('rounds', rounds, limits, 'maxCryptRounds');
  return parseSaltAndChecksum(variant, rounds, fields[1], fields[2]);
}

export async function verifyCrypt(password: string, parsed: CryptHash): Promise<boolean> {
  const bytes = legacyPasswordBytes(password);
  if (!bytes) return false;
  const computed =
    parsed.variant === 'md5-crypt'
      ? await md5CryptChecksum(bytes, parsed.salt)
      : await shaCryptChecksum(parsed.variant === 'sha256-crypt' ? 'sha256' : 'sha512', bytes, parsed.salt, parsed.rounds);
  return equalTextInConstantTime(computed, parsed.checksum);
}

function parseRounds(variant: CryptVariant, field: string): number | ParseResult<CryptHash> {
  const match = /^rounds=(0|[1-9]\d*)$/.exec(field);
  if (!match) return fail(`${variant} rounds must be rounds=<decimal integer without leading zeros>`);
  const rounds = Number(match[1]);
  const { minRounds, maxRounds } = SHA_CRYPT_LIMITS;
  if (rounds < minRounds || rounds > maxRounds) {
    return fail(`${variant} rounds must be between ${minRounds} and ${maxRounds}, got ${match[1]}`);
  }
  return rounds;
}

function parseSaltAndChecksum(variant: CryptVariant, rounds: number, salt: string, checksum: string): ParseResult<CryptHash> {
  const rules = RULES[variant];
  if (salt.length > rules.maxSalt) return fail(`${variant} salt must be at most ${rules.maxSalt} characters, got ${salt.length}`);
  if (!CRYPT_CHARACTERS.test(salt)) return fail(`${variant} salt must use only the characters ./0-9A-Za-z`);
  if (checksum.length !== rules.checksumLength) {
    return fail(`${variant} checksum must be exactly ${rules.checksumLength} characters, got ${checksum.length}`);
  }
  if (!CRYPT_CHARACTERS.test(checksum)) return fail(`${variant} checksum must use only the characters ./0-9A-Za-z`);
  if (!hasZeroPaddingBits(checksum, rules.checksumBits)) return fail(`${variant} checksum has non-zero padding bits in its last character`);
  return { ok: true, value: { variant, rounds, salt, checksum } };
}

/** 42 round layouts of at most two passwords, the salt and a digest each (see crypt-rounds.ts), rounded up. */
const CRYPT_MEMORY_BYTES = 128 * 1024;

export const cryptFormat: HashFormat<CryptHash> = {
  id: 'CRYPT',
  aliases: [],
  invalidMessage: 'Password hash is in invalid crypt format',
  needsSignerKey: false,
  pool: 'BCRYPT',
  hasPrefix: hasCryptPrefix,
  parse: parseCrypt,
  verify: verifyCrypt,
  memoryBytes: () => CRYPT_MEMORY_BYTES,
  costClass: (parsed) => scheduledOrCostly(parsed.variant !== 'md5-crypt' && parsed.rounds >= COSTLY_FROM.shaCryptRounds),
  isWeak: (parsed) => parsed.variant === 'md5-crypt',
};
