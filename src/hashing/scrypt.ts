import { scrypt } from 'node:crypto';
import { decodePaddedCanonicalBase64, decodeUnpaddedCanonicalBase64 } from '../base64.js';
import { equalInConstantTime } from './constant-time.js';
import { fail, overCostLimit, type HashCostLimits, type HashFormat, type ParseResult, scheduledOrCostly } from './format.js';
import { COSTLY_FROM } from './cost-limits.js';

/** Standard scrypt (RFC 7914) as passlib/PHC, Kratos, Werkzeug and Django write it. */
export interface ScryptHash {
  n: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

// Hard limits, held at sign-in too: N up to 2^20 and r up to 32 cover every producer's default (Werkzeug
// 32768/8/1, Django 16384/8/1, Kratos 16384/8/1) and RFC 7914's vectors (N=2^20, and p=16); the import bound
// on 128·N·r·p (imported_hash_max_memory_kib) is far lower.
export const SCRYPT_LIMITS = { maxLog2N: 20, maxR: 32, maxP: 16, minKeyBytes: 16, maxKeyBytes: 128, maxSaltBytes: 1024 } as const;
/** OpenSSL needs 128·r·(p + 2) bytes beside the 128·N·r table. */
const MAXMEM_SLACK = 1024 * 1024;

const PHC = /^\$scrypt\$ln=([0-9]+),r=([0-9]+),p=([0-9]+)\$([^$]*)\$([^$]*)$/;
const WERKZEUG = /^scrypt:([0-9]+):([0-9]+):([0-9]+)\$([^$]*)\$([0-9a-f]*)$/;
const DJANGO = /^scrypt\$([0-9]+)\$([^$]*)\$([0-9]+)\$([0-9]+)\$([^$]*)$/;
const SHAPES = '$scrypt$ln=<log2 N or N>,r=<r>,p=<p>$<salt>$<hash>, scrypt:<N>:<r>:<p>$<salt>$<hex> or scrypt$<N>$<salt>$<r>$<p>$<hash>';

type Numbers = [string, string, string];

export function hasScryptPrefix(hash: string): boolean {
  return hash.startsWith('$scrypt$') || hash.startsWith('scrypt:') || hash.startsWith('scrypt$');
}

export function parseScrypt(hash: string, limits?: HashCostLimits): ParseResult<ScryptHash> {
  const phc = PHC.exec(hash);
  if (phc) {
    const salt = decodeEitherPadding(phc[4]);
    const key = decodeEitherPadding(phc[5]);
    if (!salt || !key) return fail('salt and hash must be canonical base64');
    // passlib writes log2(N); Kratos writes N itself under the same name. N ≥ 32 cannot be a log2 in any real hash.
    const ln = phc[1];
    if (!/^[1-9][0-9]*$/.test(ln)) return fail('ln must be a decimal integer without leading zeros', true);
    const value = Number(ln);
    if (value >= 32 && !isPowerOfTwo(value)) {
      return fail(`ln=${ln} is neither log2(N) (up to 31) nor a power of two (Kratos writes N)`, true);
    }
    const n = value >= 32 ? value : 2 ** value;
    return checked([String(n), phc[2], phc[3]], salt, key, limits);
  }
  const werkzeug = WERKZEUG.exec(hash);
  if (werkzeug) {
    if (werkzeug[5].length !== 128) return fail(`Werkzeug hash must be 128 lower-case hex characters, got ${werkzeug[5].length}`, true);
    const [, n, r, p, saltText, hex] = werkzeug;
    return checked([n, r, p], Buffer.from(saltText, 'utf8'), Buffer.from(hex, 'hex'), limits);
  }
  const django = DJANGO.exec(hash);
  if (django) {
    const [, n, saltText, r, p, keyText] = django;
    const key = decodePaddedCanonicalBase64(keyText);
    if (!key) return fail('Django hash must be canonical padded base64', true);
    if (key.length !== 64) return fail(`Django hash must be 64 bytes, got ${key.length} (truncated?)`, true);
    return checked([n, r, p], Buffer.from(saltText, 'utf8'), key, limits);
  }
  return fail(`expected ${SHAPES}`);
}

function checked([nText, rText, pText]: Numbers, salt: Buffer, key: Buffer, limits?: HashCostLimits): ParseResult<ScryptHash> {
  if (![nText, rText, pText].every((text) => /^[1-9][0-9]{0,9}$/.test(text))) {
    return fail('N, r and p must be positive decimal integers without leading zeros', true);
  }
  const [n, r, p] = [Number(nText), Number(rText), Number(pText)];
  const { maxLog2N, maxR, maxP, minKeyBytes, maxKeyBytes, maxSaltBytes } = SCRYPT_LIMITS;
  if (!isPowerOfTwo(n) || n < 2 || n > 2 ** maxLog2N) return fail(`N must be a power of two from 2 to 2^${maxLog2N}, got ${n}`, true);
  if (r > maxR) return fail(`r must be at most ${maxR}`, true);
  if (p > maxP) return fail(`p must be at most ${maxP}`, true);
  // scrypt itself requires N < 2^(128·r/8); Node refuses anything else, so such a hash could never verify.
  if (Math.log2(n) >= 16 * r) return fail('N must be less than 2^(16·r)', true);
  // RFC 7914 allows an empty salt, and its first test vector has one.
  if (salt.length > maxSaltBytes) return fail(`salt must be at most ${maxSaltBytes} bytes, got ${salt.length}`, true);
  if (key.length < minKeyBytes || key.length > maxKeyBytes) {
    return fail(`hash must be ${minKeyBytes} to ${maxKeyBytes} bytes, got ${key.length} (truncated?)`, true);
  }
  // Time grows with N·r·p and Node runs the p lanes one after another, so the bound holds 128·N·r·p.
  const workKib = (128 * n * r * p) / 1024;
  if (limits && workKib > limits.maxMemoryKib) return overCostLimit('128 · N · r · p', workKib, limits, 'maxMemoryKib', ' KiB');
  return { ok: true, value: { n, r, p, salt, key } };
}

function decodeEitherPadding(text: string): Buffer | undefined {
  return text.endsWith('=') ? decodePaddedCanonicalBase64(text) : decodeUnpaddedCanonicalBase64(text);
}

function isPowerOfTwo(value: number): boolean {
  return Number.isInteger(Math.log2(value));
}

function tableBytes(parsed: ScryptHash): number {
  return 128 * parsed.n * parsed.r;
}

export function verifyScrypt(password: string, parsed: ScryptHash): Promise<boolean> {
  const { n: N, r, p, salt, key } = parsed;
  const options = { N, r, p, maxmem: tableBytes(parsed) + MAXMEM_SLACK };
  return new Promise((resolve, reject) => {
    scrypt(Buffer.from(password, 'utf8'), salt, key.length, options, (error, derived) =>
      error ? reject(error) : resolve(equalInConstantTime(derived, key)),
    );
  });
}

export const scryptFormat: HashFormat<ScryptHash> = {
  id: 'SCRYPT',
  aliases: [],
  invalidMessage: 'Password hash is in invalid SCrypt format',
  needsSignerKey: false,
  pool: 'SCRYPT',
  hasPrefix: hasScryptPrefix,
  parse: parseScrypt,
  verify: verifyScrypt,
  memoryBytes: (parsed) => tableBytes(parsed) + MAXMEM_SLACK,
  costClass: (parsed) => scheduledOrCostly(tableBytes(parsed) * parsed.p >= COSTLY_FROM.scryptMemoryBytes),
};
