import { createCipheriv, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { decodeEitherBase64 } from '../base64.js';
import { fail, overCostLimit, type HashCostLimits, type HashFormat, type ParseResult, scheduledOrCostly } from './format.js';
import { COSTLY_FROM } from './cost-limits.js';

/**
 * The exporting platform's scrypt variant: `$f_scrypt$<hash>$<salt>$m=<mem_cost>$r=<rounds>$s=<separator>`, and
 * optionally `$k=<name>`: the hash was made with the signer key of that name in idp_password_hashing_signer_keys
 * (each Identity Platform tenant has a key of its own).
 */
export interface IdpScryptHash {
  hash: Buffer;
  salt: Buffer;
  separator: Buffer;
  memCost: number;
  rounds: number;
  keyName?: string;
}

const KEY_NAME = /^[A-Za-z0-9_-]{1,64}$/;

// 1 GiB per verification is the most one imported hash may make a sign-in allocate; mem_cost and
// rounds caps stop absurd values before the product is even computed.
export const IDP_SCRYPT_LIMITS = {
  minMemCost: 1,
  maxMemCost: 20,
  minRounds: 1,
  maxRounds: 32,
  maxMemoryBytes: 1024 ** 3,
  minHashBytes: 16,
} as const;

export const IDP_SCRYPT_PREFIX = '$f_scrypt$';
const DERIVED_KEY_BYTES = 64;
const AES_KEY_BYTES = 32;
/** OpenSSL also needs 128·r·(p + 2) bytes beside the 128·N·r table. */
const MAXMEM_SLACK = 1024 * 1024;

export function parseIdpScrypt(stored: string, limits?: HashCostLimits): ParseResult<IdpScryptHash> {
  const pieces = stored.split('$');
  // Java's String.split, which defines the format, drops trailing empty pieces.
  while (pieces.length > 0 && pieces[pieces.length - 1] === '') pieces.pop();
  if ((pieces.length !== 7 && pieces.length !== 8) || pieces[0] !== '' || pieces[1] !== 'f_scrypt') {
    return fail('expected $f_scrypt$<hash>$<salt>$m=<mem_cost>$r=<rounds>$s=<separator>[$k=<key name>]');
  }
  const named = new Map<string, string>();
  for (const piece of pieces.slice(4)) {
    const key = piece.slice(0, 2);
    if (!['m=', 'r=', 's=', 'k='].includes(key) || named.has(key)) {
      return fail('the last parts must be m=<mem_cost>, r=<rounds>, s=<separator> and optionally k=<key name>, once each');
    }
    named.set(key, piece.slice(2));
  }
  if (pieces.length === 8 && !named.has('k='))
    return fail('the last parts must be m=<mem_cost>, r=<rounds>, s=<separator> and k=<key name>');
  const memText = named.get('m=') ?? '';
  const roundsText = named.get('r=') ?? '';
  if (!/^\d+$/.test(memText) || !/^\d+$/.test(roundsText)) return fail('m and r must be decimal integers');

  // From here on the string is recognisably this format; what follows are the stricter checks.
  const memCost = Number(memText);
  const rounds = Number(roundsText);
  const { minMemCost, maxMemCost, minRounds, maxRounds, maxMemoryBytes, minHashBytes } = IDP_SCRYPT_LIMITS;
  const hash = decodeEitherBase64(pieces[2]);
  if (!hash) return fail('password hash is not valid base64', true);
  if (hash.length < minHashBytes) return fail(`password hash must decode to at least ${minHashBytes} bytes`, true);
  const salt = decodeEitherBase64(pieces[3]);
  if (!salt) return fail('salt is not valid base64', true);
  const separator = decodeEitherBase64(named.get('s=') ?? '');
  if (!separator) return fail('salt separator is not valid base64', true);
  if (memCost < minMemCost || memCost > maxMemCost) {
    return fail(`mem_cost must be between ${minMemCost} and ${maxMemCost}`, true);
  }
  if (rounds < minRounds || rounds > maxRounds) return fail(`rounds must be between ${minRounds} and ${maxRounds}`, true);
  if (scryptMemoryBytes(memCost, rounds) > maxMemoryBytes) {
    return fail('128 * 2^mem_cost * rounds must not exceed 1 GiB', true);
  }
  // scrypt itself requires N < 2^(16·r); Node rejects anything else, so such a hash can never verify.
  if (memCost >= 16 * rounds) return fail('mem_cost must be less than 16 * rounds', true);
  const keyName = named.get('k=');
  if (keyName !== undefined && !KEY_NAME.test(keyName)) return fail('k must name a signer key: 1 to 64 of A-Z, a-z, 0-9, _ and -', true);
  const memoryKib = scryptMemoryBytes(memCost, rounds) / 1024;
  if (limits && memoryKib > limits.maxMemoryKib) {
    return overCostLimit('memory 128 * 2^mem_cost * rounds', memoryKib, limits, 'maxMemoryKib', ' KiB');
  }
  return { ok: true, value: { hash, salt, separator, memCost, rounds, ...(keyName !== undefined && { keyName }) } };
}

function scryptMemoryBytes(memCost: number, rounds: number): number {
  return 128 * 2 ** memCost * rounds;
}

function scryptAsync(password: Buffer, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, DERIVED_KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function computeIdpScrypt(password: string, parsed: IdpScryptHash, signerKey: Buffer): Promise<Buffer> {
  const derived = await scryptAsync(Buffer.from(password, 'utf8'), Buffer.concat([parsed.salt, parsed.separator]), {
    N: 2 ** parsed.memCost,
    r: parsed.rounds,
    p: 1,
    maxmem: scryptMemoryBytes(parsed.memCost, parsed.rounds) + MAXMEM_SLACK,
  });
  const cipher = createCipheriv('aes-256-ctr', derived.subarray(0, AES_KEY_BYTES), Buffer.alloc(16));
  return Buffer.concat([cipher.update(signerKey), cipher.final()]);
}

export async function verifyIdpScrypt(password: string, parsed: IdpScryptHash, signerKey: Buffer): Promise<boolean> {
  const computed = await computeIdpScrypt(password, parsed, signerKey);
  return computed.length === parsed.hash.length && timingSafeEqual(computed, parsed.hash);
}

export const idpScryptFormat: HashFormat<IdpScryptHash> = {
  id: 'IDP_SCRYPT',
  aliases: ['FIREBASE_SCRYPT'],
  invalidMessage: 'Password hash is in invalid Firebase SCrypt format',
  needsSignerKey: true,
  pool: 'SCRYPT',
  hasPrefix: (hash) => hash.startsWith(IDP_SCRYPT_PREFIX),
  parse: parseIdpScrypt,
  memoryBytes: (parsed) => scryptMemoryBytes(parsed.memCost, parsed.rounds) + MAXMEM_SLACK,
  costClass: (parsed) => scheduledOrCostly(scryptMemoryBytes(parsed.memCost, parsed.rounds) >= COSTLY_FROM.scryptMemoryBytes),
  signerKeyName: (parsed) => parsed.keyName,
  verify: (password, parsed, context) => {
    const key = parsed.keyName === undefined ? context.signerKey : context.namedSignerKeys?.get(parsed.keyName);
    if (!key) throw new Error('scrypt-variant verification needs the signer key');
    return verifyIdpScrypt(password, parsed, key);
  },
};
