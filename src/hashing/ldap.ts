import { hash } from 'node:crypto';
import { equalInConstantTime } from './constant-time.js';
import { bcryptFormat } from './bcrypt.js';
import { cryptFormat } from './crypt.js';
import { legacyPasswordBytes } from './legacy-password.js';
import { decodePaddedCanonicalBase64 } from '../base64.js';
import { fail, type HashCostClass, type HashCostLimits, type HashFormat, type ParseResult, type VerifyContext } from './format.js';

/**
 * RFC 2307 `userPassword` values: `{SCHEME}` then base64 of digest (‖ salt), or `{CRYPT}` then a string of the crypt
 * family or bcrypt, verified by that format.
 */
export type LdapHash =
  | { scheme: string; algorithm: string; digest: Buffer; salt: Buffer; inner?: undefined }
  | { scheme: 'CRYPT'; inner: { format: HashFormat<unknown>; parsed: unknown } };

interface DigestScheme {
  algorithm: string;
  size: number;
  salted: boolean;
}

const SCHEMES: Readonly<Record<string, DigestScheme>> = {
  MD5: { algorithm: 'md5', size: 16, salted: false },
  SMD5: { algorithm: 'md5', size: 16, salted: true },
  SHA: { algorithm: 'sha1', size: 20, salted: false },
  SSHA: { algorithm: 'sha1', size: 20, salted: true },
  SHA256: { algorithm: 'sha256', size: 32, salted: false },
  SSHA256: { algorithm: 'sha256', size: 32, salted: true },
  SHA384: { algorithm: 'sha384', size: 48, salted: false },
  SSHA384: { algorithm: 'sha384', size: 48, salted: true },
  SHA512: { algorithm: 'sha512', size: 64, salted: false },
  SSHA512: { algorithm: 'sha512', size: 64, salted: true },
};

const PREFIX = /^\{(MD5|SMD5|SHA|SSHA|SHA256|SSHA256|SHA384|SSHA384|SHA512|SSHA512|CRYPT)\}/i;
/** passlib refuses salts under 4 bytes; 64 is well above what directories write (4 to 16). */
export const LDAP_SALT_LIMITS = { minBytes: 4, maxBytes: 64 } as const;

export function hasLdapPrefix(hash: string): boolean {
  return PREFIX.test(hash);
}

export function parseLdap(hash: string, limits?: HashCostLimits): ParseResult<LdapHash> {
  const match = PREFIX.exec(hash);
  if (!match) return fail('must start with {MD5}, {SMD5}, {SHA}, {SSHA}, {SHA256}…{SSHA512} or {CRYPT}');
  const scheme = match[1].toUpperCase();
  const value = hash.slice(match[0].length);
  if (scheme === 'CRYPT') {
    const format = (bcryptFormat.hasPrefix(value) ? bcryptFormat : cryptFormat) as HashFormat<unknown>;
    const inner = format.parse(value, limits);
    if (!inner.ok) return fail(`LDAP {CRYPT} value: ${inner.reason}`);
    return { ok: true, value: { scheme, inner: { format, parsed: inner.value } } };
  }
  const { algorithm, size, salted } = SCHEMES[scheme];
  const bytes = decodePaddedCanonicalBase64(value);
  if (!bytes) return fail(`LDAP {${scheme}} value must be padded standard base64`);
  if (!salted) {
    if (bytes.length !== size) return fail(`LDAP {${scheme}} digest must be ${size} bytes, got ${bytes.length}`);
    return { ok: true, value: { scheme, algorithm, digest: bytes, salt: Buffer.alloc(0) } };
  }
  const saltLength = bytes.length - size;
  const { minBytes, maxBytes } = LDAP_SALT_LIMITS;
  if (saltLength < minBytes || saltLength > maxBytes) {
    return fail(`LDAP {${scheme}} salt must be between ${minBytes} and ${maxBytes} bytes after the ${size}-byte digest, got ${saltLength}`);
  }
  return { ok: true, value: { scheme, algorithm, digest: bytes.subarray(0, size), salt: bytes.subarray(size) } };
}

export async function verifyLdap(password: string, parsed: LdapHash, context: VerifyContext = {}): Promise<boolean> {
  if (parsed.inner) return parsed.inner.format.verify(password, parsed.inner.parsed, context);
  return verifyLdapDigest(password, parsed);
}

/** `{CRYPT}` takes the class of the string inside it (rounds and all); the digest schemes are one digest. */
function ldapCostClass(parsed: LdapHash): HashCostClass {
  return parsed.inner ? parsed.inner.format.costClass(parsed.inner.parsed) : 'INSTANT';
}

function verifyLdapNow(password: string, parsed: LdapHash, context: VerifyContext): boolean {
  if (!parsed.inner) return verifyLdapDigest(password, parsed);
  const { format, parsed: inner } = parsed.inner;
  if (!format.verifyNow || format.costClass(inner) !== 'INSTANT') throw new Error(`{CRYPT} with a ${format.id} string is not instant`);
  return format.verifyNow(password, inner, context);
}

function verifyLdapDigest(password: string, parsed: Exclude<LdapHash, { scheme: 'CRYPT' }>): boolean {
  const bytes = legacyPasswordBytes(password);
  if (!bytes) return false;
  return equalInConstantTime(hash(parsed.algorithm, Buffer.concat([bytes, parsed.salt]), 'buffer'), parsed.digest);
}

export const ldapFormat: HashFormat<LdapHash> = {
  id: 'LDAP',
  aliases: [],
  invalidMessage: 'Password hash is in invalid LDAP format',
  needsSignerKey: false,
  pool: 'BCRYPT',
  hasPrefix: hasLdapPrefix,
  parse: parseLdap,
  verify: verifyLdap,
  memoryBytes: (parsed) => (parsed.inner ? parsed.inner.format.memoryBytes(parsed.inner.parsed) : 4 * 1024),
  costClass: ldapCostClass,
  verifyNow: verifyLdapNow,
  isWeak: (parsed) => (parsed.inner ? (parsed.inner.format.isWeak?.(parsed.inner.parsed) ?? false) : true),
};
