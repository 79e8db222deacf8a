import { decodePaddedCanonicalBase64 } from '../base64.js';

/**
 * Auth0's bulk-import `custom_password_hash` object, turned into the self-describing string the core stores.
 * Only the shapes that map onto a supported format are converted; the others are refused with the reason.
 */
export type CustomHashConversion = { hash: string } | { problem: string };

type Encoded = { value?: unknown; encoding?: unknown };

const DIGESTS = ['md5', 'sha1', 'sha256', 'sha512'];
const HMAC_DIGESTS = ['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512'];
/** Algorithms whose `hash.value` already is a string of a supported format. */
const PASS_THROUGH = ['bcrypt', 'argon2', 'ldap', 'pbkdf2'];

export function convertAuth0CustomHash(custom: Record<string, unknown>): CustomHashConversion {
  const algorithm = typeof custom.algorithm === 'string' ? custom.algorithm.toLowerCase() : undefined;
  const hash = (custom.hash ?? {}) as Encoded & { digest?: unknown; key?: Encoded };
  const passwordEncoding = (custom.password as { encoding?: unknown } | undefined)?.encoding;
  if (passwordEncoding !== undefined && passwordEncoding !== 'utf8') {
    return { problem: `custom_password_hash password.encoding ${String(passwordEncoding)} is not supported (only utf8)` };
  }
  if (algorithm !== undefined && PASS_THROUGH.includes(algorithm)) {
    return typeof hash.value === 'string' ? { hash: hash.value } : { problem: 'custom_password_hash hash.value must be a string' };
  }
  const digest = decode(hash, 'hash');
  if ('problem' in digest) return digest;
  const salt = custom.salt === undefined ? undefined : decode(custom.salt as Encoded, 'salt');
  if (salt && 'problem' in salt) return salt;
  const saltBytes = salt?.bytes ?? Buffer.alloc(0);

  if (algorithm !== undefined && DIGESTS.includes(algorithm)) {
    const position = (custom.salt as { position?: unknown } | undefined)?.position ?? 'prefix';
    if (position !== 'prefix' && position !== 'suffix') {
      return { problem: `custom_password_hash salt.position ${String(position)} is not prefix or suffix` };
    }
    const template = salt === undefined ? '{PASSWORD}' : position === 'prefix' ? '{SALT}{PASSWORD}' : '{PASSWORD}{SALT}';
    return { hash: `$${algorithm}$pf=${base64(Buffer.from(template))}$${base64(saltBytes)}$${base64(digest.bytes)}` };
  }
  if (algorithm === 'hmac') {
    const mac = typeof hash.digest === 'string' ? hash.digest.toLowerCase() : undefined;
    if (mac === undefined || !HMAC_DIGESTS.includes(mac)) {
      return { problem: `custom_password_hash hmac digest ${String(hash.digest)} is not supported` };
    }
    if (salt !== undefined) return { problem: 'custom_password_hash hmac with a salt is not supported' };
    const key = decode(hash.key ?? {}, 'hash.key');
    if ('problem' in key) return key;
    return { hash: `$hmac-${mac}$${base64(digest.bytes)}$${base64(key.bytes)}` };
  }
  return { problem: `custom_password_hash algorithm ${String(custom.algorithm)} is not supported` };
}

function decode(field: Encoded, name: string): { bytes: Buffer } | { problem: string } {
  const { value, encoding = 'utf8' } = field;
  if (typeof value !== 'string') return { problem: `custom_password_hash ${name}.value must be a string` };
  if (encoding === 'utf8') return { bytes: Buffer.from(value, 'utf8') };
  if (encoding === 'hex' && /^(?:[0-9a-fA-F]{2})*$/.test(value)) return { bytes: Buffer.from(value, 'hex') };
  const base64Bytes = encoding === 'base64' ? decodePaddedCanonicalBase64(value) : undefined;
  if (base64Bytes) return { bytes: base64Bytes };
  return { problem: `custom_password_hash ${name} is not valid ${String(encoding)}` };
}

function base64(bytes: Buffer): string {
  return bytes.toString('base64');
}
