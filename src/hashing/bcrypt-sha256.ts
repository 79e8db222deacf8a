import { createHash, createHmac } from 'node:crypto';
import { bcryptFormat, parseBcrypt, verifyBcrypt, type BcryptHash } from './bcrypt.js';
import { fail, type HashCostLimits, type HashFormat, type ParseResult } from './format.js';

/**
 * bcrypt of a SHA-256 pre-hash, so passwords over bcrypt's 72 bytes are not cut short. Three forms:
 * Django `bcrypt_sha256$<bcrypt>` (input: hex SHA-256), passlib v1 `$bcrypt-sha256$2b,<cost>$<salt>$<sum>`
 * (input: base64 SHA-256) and passlib v2 `$bcrypt-sha256$v=2,t=2b,r=<cost>$<salt>$<sum>` (input: base64 of
 * HMAC-SHA256 keyed with the salt text).
 */
export interface BcryptSha256Hash {
  preHash: 'django' | 'passlib-v1' | 'passlib-v2';
  /** The 22 salt characters, the HMAC key of passlib v2. */
  salt: string;
  inner: BcryptHash;
}

const DJANGO_PREFIX = 'bcrypt_sha256$';
const PASSLIB_PREFIX = '$bcrypt-sha256$';
const V1 = /^\$bcrypt-sha256\$(2a|2b),([1-9][0-9]?)\$([./A-Za-z0-9]{22})\$([./A-Za-z0-9]{31})$/;
const V2 = /^\$bcrypt-sha256\$v=2,t=2b,r=([1-9][0-9]?)\$([./A-Za-z0-9]{22})\$([./A-Za-z0-9]{31})$/;

export function hasBcryptSha256Prefix(hash: string): boolean {
  return hash.startsWith(DJANGO_PREFIX) || hash.startsWith(PASSLIB_PREFIX);
}

export function parseBcryptSha256(hash: string, limits?: HashCostLimits): ParseResult<BcryptSha256Hash> {
  if (hash.startsWith(DJANGO_PREFIX)) {
    const inner = parseBcrypt(hash.slice(DJANGO_PREFIX.length), limits);
    if (!inner.ok) return fail(`the bcrypt part: ${inner.reason}`, true);
    const salt = hash.slice(DJANGO_PREFIX.length + 7, DJANGO_PREFIX.length + 29);
    return { ok: true, value: { preHash: 'django', salt, inner: inner.value } };
  }
  const v2 = V2.exec(hash);
  const v1 = v2 ? undefined : V1.exec(hash);
  if (!v2 && !v1) {
    return fail('expected bcrypt_sha256$<bcrypt hash>, $bcrypt-sha256$v=2,t=2b,r=<cost>$<22-char salt>$<31-char sum> or the v1 form');
  }
  const [ident, cost, salt, sum] = v2 ? ['2b', v2[1], v2[2], v2[3]] : [v1![1], v1![2], v1![3], v1![4]];
  const inner = parseBcrypt(`$${ident}$${cost.padStart(2, '0')}$${salt}${sum}`, limits);
  if (!inner.ok) return fail(`the bcrypt part: ${inner.reason}`, true);
  return { ok: true, value: { preHash: v2 ? 'passlib-v2' : 'passlib-v1', salt, inner: inner.value } };
}

/** The text bcrypt sees: at most 64 ASCII characters, whatever the password's length. */
function preHash(password: string, parsed: BcryptSha256Hash): string {
  const bytes = Buffer.from(password, 'utf8');
  if (parsed.preHash === 'django') return createHash('sha256').update(bytes).digest('hex');
  if (parsed.preHash === 'passlib-v1') return createHash('sha256').update(bytes).digest('base64');
  return createHmac('sha256', Buffer.from(parsed.salt, 'ascii')).update(bytes).digest('base64');
}

export const bcryptSha256Format: HashFormat<BcryptSha256Hash> = {
  id: 'BCRYPT_SHA256',
  aliases: [],
  invalidMessage: 'Password hash is in invalid BCrypt-SHA256 format',
  needsSignerKey: false,
  pool: 'BCRYPT',
  hasPrefix: hasBcryptSha256Prefix,
  parse: parseBcryptSha256,
  // The digest is microseconds on the event loop; the bcrypt that follows runs on the thread pool.
  verify: (password, parsed) => verifyBcrypt(preHash(password, parsed), parsed.inner),
  memoryBytes: (parsed) => bcryptFormat.memoryBytes(parsed.inner),
  costClass: (parsed) => bcryptFormat.costClass(parsed.inner),
};
