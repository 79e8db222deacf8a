import { createHash } from 'node:crypto';
import { CRYPT_ALPHABET, CRYPT_CHARACTERS, hasZeroPaddingBits } from './crypt-base64.js';
import { equalTextInConstantTime } from './constant-time.js';
import { legacyPasswordBytes } from './legacy-password.js';
import { phpassChecksum, type PhpassDigest } from './phpass-core.js';
import { fail, type HashFormat, type ParseResult, scheduledOrCostly } from './format.js';
import { COSTLY_FROM } from './cost-limits.js';

export interface PhpassHash {
  /** Drupal's `U$` marks a hash of the MD5 hex of the password, from users moved over from Drupal 6. */
  layered: boolean;
  digest: PhpassDigest;
  log2Rounds: number;
  salt: string;
  checksum: string;
}

const PREFIX = /^(U)?\$([PHS])\$/;
const SALT_LENGTH = 8;
/** MD5 gives 22 characters; Drupal cuts the SHA-512 form at 55 characters in all, leaving 43. */
const CHECKSUM_LENGTH: Readonly<Record<PhpassDigest, number>> = { md5: 22, sha512: 43 };
/**
 * phpass, passlib and Drupal accept 7..30. WordPress writes 13, phpBB 11, Drupal 7 15; 2^18 SHA-512 rounds
 * take about half a second, which bounds what one imported hash can cost per sign-in.
 */
export const PHPASS_LIMITS = { minLog2Rounds: 7, maxLog2Rounds: 18 } as const;

export function hasPhpassPrefix(hash: string): boolean {
  return PREFIX.test(hash);
}

export function parsePhpass(hash: string): ParseResult<PhpassHash> {
  const match = PREFIX.exec(hash);
  if (!match) return fail('must start with $P$, $H$, $S$, U$P$ or U$S$');
  const layered = match[1] === 'U';
  const digest: PhpassDigest = match[2] === 'S' ? 'sha512' : 'md5';
  const name = `phpass ${match[0]}`;
  const rest = hash.slice(match[0].length);
  const expected = 1 + SALT_LENGTH + CHECKSUM_LENGTH[digest];
  if (rest.length !== expected) {
    return fail(`${name} must have exactly ${expected} characters after the prefix (count, salt, checksum), got ${rest.length}`);
  }
  if (!CRYPT_CHARACTERS.test(rest)) return fail(`${name} count, salt and checksum must use only the characters ./0-9A-Za-z`);
  const log2Rounds = CRYPT_ALPHABET.indexOf(rest[0]);
  const { minLog2Rounds, maxLog2Rounds } = PHPASS_LIMITS;
  if (log2Rounds < minLog2Rounds || log2Rounds > maxLog2Rounds) {
    return fail(`${name} count must be between 2^${minLog2Rounds} and 2^${maxLog2Rounds} rounds, got 2^${log2Rounds}`);
  }
  const checksum = rest.slice(1 + SALT_LENGTH);
  if (digest === 'md5' && !hasZeroPaddingBits(checksum, 128)) {
    return fail(`${name} checksum has non-zero padding bits in its last character`);
  }
  return { ok: true, value: { layered, digest, log2Rounds, salt: rest.slice(1, 1 + SALT_LENGTH), checksum } };
}

export async function verifyPhpass(password: string, parsed: PhpassHash): Promise<boolean> {
  const bytes = legacyPasswordBytes(password);
  if (!bytes) return false;
  const input = parsed.layered ? Buffer.from(createHash('md5').update(bytes).digest('hex')) : bytes;
  const computed = await phpassChecksum(parsed.digest, input, parsed.salt, parsed.log2Rounds, parsed.checksum.length);
  return equalTextInConstantTime(computed, parsed.checksum);
}

export const phpassFormat: HashFormat<PhpassHash> = {
  id: 'PHPASS',
  aliases: [],
  invalidMessage: 'Password hash is in invalid phpass format',
  needsSignerKey: false,
  pool: 'BCRYPT',
  hasPrefix: hasPhpassPrefix,
  parse: parsePhpass,
  verify: verifyPhpass,
  // One digest plus the password, twice: the running value and the next round's input.
  memoryBytes: () => 4 * 1024,
  costClass: (parsed) => scheduledOrCostly(parsed.log2Rounds >= COSTLY_FROM.phpassLog2Rounds),
  isWeak: () => true,
};
