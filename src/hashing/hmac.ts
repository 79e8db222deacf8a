import { createHmac } from 'node:crypto';
import { equalInConstantTime } from './constant-time.js';
import { legacyPasswordBytes } from './legacy-password.js';
import { decodePaddedCanonicalBase64 } from '../base64.js';
import { fail, type HashFormat, type ParseResult } from './format.js';

export interface HmacHash {
  algorithm: string;
  key: Buffer;
  mac: Buffer;
  /** Kratos stores base64 of the lower-case hex text of the MAC rather than of the MAC itself. */
  hexText: boolean;
}

const MAC_SIZES: Readonly<Record<string, number>> = { md5: 16, sha1: 20, sha224: 28, sha256: 32, sha384: 48, sha512: 64 };
const FORM = /^\$hmac-(md5|sha1|sha224|sha256|sha384|sha512)\$([^$]*)\$([^$]*)$/;
export const HMAC_LIMITS = { minKeyBytes: 1, maxKeyBytes: 1024 } as const;

export function hasHmacPrefix(hash: string): boolean {
  return hash.startsWith('$hmac-');
}

export function parseHmac(hash: string): ParseResult<HmacHash> {
  const match = FORM.exec(hash);
  if (!match) return fail('HMAC must be $hmac-<md5|sha1|sha224|sha256|sha384|sha512>$<base64 MAC>$<base64 key>');
  const [, algorithm, macText, keyText] = match;
  const name = `$hmac-${algorithm}$`;
  const mac = decodePaddedCanonicalBase64(macText);
  if (!mac) return fail(`${name} MAC must be padded base64`);
  const key = decodePaddedCanonicalBase64(keyText);
  if (!key) return fail(`${name} key must be padded base64`);
  const { minKeyBytes, maxKeyBytes } = HMAC_LIMITS;
  if (key.length < minKeyBytes || key.length > maxKeyBytes) {
    return fail(`${name} key must be between ${minKeyBytes} and ${maxKeyBytes} bytes, got ${key.length}`);
  }
  const size = MAC_SIZES[algorithm];
  if (mac.length === size) return { ok: true, value: { algorithm, key, mac, hexText: false } };
  if (mac.length === 2 * size && /^[0-9a-f]*$/.test(mac.toString('latin1'))) {
    return { ok: true, value: { algorithm, key, mac, hexText: true } };
  }
  return fail(`${name} MAC must be ${size} bytes or their ${2 * size} lower-case hex characters, got ${mac.length} bytes`);
}

export async function verifyHmac(password: string, parsed: HmacHash): Promise<boolean> {
  return verifyHmacNow(password, parsed);
}

export function verifyHmacNow(password: string, parsed: HmacHash): boolean {
  const bytes = legacyPasswordBytes(password);
  if (!bytes) return false;
  const mac = createHmac(parsed.algorithm, parsed.key).update(bytes).digest();
  return equalInConstantTime(parsed.hexText ? Buffer.from(mac.toString('hex'), 'latin1') : mac, parsed.mac);
}

export const hmacFormat: HashFormat<HmacHash> = {
  id: 'HMAC',
  aliases: [],
  invalidMessage: 'Password hash is in invalid HMAC format',
  needsSignerKey: false,
  pool: 'BCRYPT',
  hasPrefix: hasHmacPrefix,
  parse: parseHmac,
  verify: verifyHmac,
  memoryBytes: () => 4 * 1024,
  // One HMAC over a key and a password of at most 1024 bytes each.
  costClass: () => 'INSTANT',
  verifyNow: verifyHmacNow,
  // One keyed digest: as fast to guess as a salted digest.
  isWeak: () => true,
};
