import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import type argon2Binding from 'argon2';
import { decodeUnpaddedCanonicalBase64, encodeUnpaddedBase64 } from '../base64.js';
import {
  fail,
  overCostLimit,
  type HashCostLimits,
  type HashFormat,
  type NewHashParams,
  type ParseResult,
  scheduledOrCostly,
} from './format.js';
import { COSTLY_FROM } from './cost-limits.js';

// The native binding is loaded on the first hash: the migration command reads this format without ever hashing.
let binding: typeof argon2Binding | undefined;
const argon2 = () => (binding ??= createRequire(import.meta.url)('argon2') as typeof argon2Binding);

export type Argon2Type = 'argon2i' | 'argon2d' | 'argon2id';

export interface Argon2Hash {
  type: Argon2Type;
  version: 16 | 19;
  memoryKb: number;
  iterations: number;
  parallelism: number;
  saltLength: number;
  hashLength: number;
  encoded: string;
}

export interface Argon2Params {
  memoryKb: number;
  iterations: number;
  parallelism: number;
}

// Hard limits, held at sign-in too: a stored hash beyond them is not verified at all. The configurable, much lower
// import bounds are in HashCostLimits. The lower bounds are what the argon2 reference implementation requires.
export const ARGON2_LIMITS = {
  maxMemoryKb: 4_194_304,
  maxIterations: 1024,
  maxParallelism: 255,
  minMemoryKbPerLane: 8,
  minSaltBytes: 8,
} as const;

// Every producer we know writes 16 (passlib) or 32 bytes (node-argon2, argon2-cffi, libsodium, PHP, Kratos, Keycloak).
// Whole 4-byte words from 16 to 128 bytes cover them with room, and refuse a digest that lost characters: base64 of
// a truncated 32-byte digest decodes to 31, 30, 29, 26 … bytes.
const DIGEST_BYTES = { min: 16, max: 128, multipleOf: 4 } as const;

const TYPES: readonly string[] = ['argon2i', 'argon2d', 'argon2id'];
const NEW_SALT_BYTES = 16;
const NEW_HASH_BYTES = 32;
const randomBytesAsync = promisify(randomBytes);

export function parseArgon2(hash: string, limits?: HashCostLimits): ParseResult<Argon2Hash> {
  const pieces = hash.split('$');
  if (pieces[0] !== '' || !TYPES.includes(pieces[1])) return fail('type must be argon2i, argon2d or argon2id');
  const hasVersion = pieces[2]?.startsWith('v=') ?? false;
  if (pieces.length !== (hasVersion ? 6 : 5)) {
    return fail('expected $<type>$v=<version>$m=<memory>,t=<iterations>,p=<parallelism>$<salt>$<hash>');
  }
  const version = hasVersion ? pieces[2] : 'v=16';
  if (version !== 'v=16' && version !== 'v=19') return fail('version must be 16 or 19');
  const [paramText, saltText, hashText] = pieces.slice(hasVersion ? 3 : 2);

  const params = parseParams(paramText);
  if (!params) return fail('parameters must be m=<memory>,t=<iterations>,p=<parallelism> as positive integers');
  const { memoryKb, iterations, parallelism } = params;
  if (memoryKb > ARGON2_LIMITS.maxMemoryKb) return fail(`memory must be at most ${ARGON2_LIMITS.maxMemoryKb} KiB`);
  if (iterations > ARGON2_LIMITS.maxIterations) return fail(`iterations must be at most ${ARGON2_LIMITS.maxIterations}`);
  if (parallelism > ARGON2_LIMITS.maxParallelism) {
    return fail(`parallelism must be at most ${ARGON2_LIMITS.maxParallelism}`);
  }
  if (memoryKb < ARGON2_LIMITS.minMemoryKbPerLane * parallelism) return fail('memory must be at least 8 KiB per lane');

  const salt = decodeUnpaddedCanonicalBase64(saltText);
  if (!salt) return fail('salt is not valid unpadded base64');
  if (salt.length < ARGON2_LIMITS.minSaltBytes) return fail('salt must be at least 8 bytes');
  const digest = decodeUnpaddedCanonicalBase64(hashText);
  if (!digest) return fail('hash is not canonical unpadded base64 (characters missing or changed?)');
  const { min, max, multipleOf } = DIGEST_BYTES;
  if (digest.length < min || digest.length > max || digest.length % multipleOf !== 0) {
    return fail(`hash decodes to ${digest.length} bytes; expected a multiple of ${multipleOf} from ${min} to ${max} (truncated?)`);
  }
  if (limits && memoryKb > limits.maxMemoryKib) return overCostLimit('memory m', memoryKb, limits, 'maxMemoryKib', ' KiB');
  if (limits && memoryKb * iterations > limits.maxArgon2WorkKib) {
    return overCostLimit('memory × iterations m × t', memoryKb * iterations, limits, 'maxArgon2WorkKib', ' KiB');
  }

  return {
    ok: true,
    value: {
      type: pieces[1] as Argon2Type,
      version: version === 'v=19' ? 19 : 16,
      ...params,
      saltLength: salt.length,
      hashLength: digest.length,
      encoded: hash,
    },
  };
}

/** Exactly m, t and p, in any order (node-argon2 itself writes m,p,t). */
function parseParams(text: string): Argon2Params | undefined {
  const values = new Map<string, number>();
  for (const entry of text.split(',')) {
    const match = /^([mtp])=([1-9][0-9]{0,9})$/.exec(entry);
    if (!match || values.has(match[1])) return undefined;
    values.set(match[1], Number(match[2]));
  }
  const [memoryKb, iterations, parallelism] = ['m', 't', 'p'].map((key) => values.get(key));
  if (memoryKb === undefined || iterations === undefined || parallelism === undefined) return undefined;
  return { memoryKb, iterations, parallelism };
}

/** New hashes are argon2id v19 and written in the canonical m,t,p order other implementations expect. */
export async function hashArgon2(password: string, params: Argon2Params): Promise<string> {
  const salt = await randomBytesAsync(NEW_SALT_BYTES);
  const digest = await argon2().hash(password, {
    type: argon2().argon2id,
    version: 0x13,
    memoryCost: params.memoryKb,
    timeCost: params.iterations,
    parallelism: params.parallelism,
    hashLength: NEW_HASH_BYTES,
    salt,
    raw: true,
  });
  const { memoryKb: m, iterations: t, parallelism: p } = params;
  return `$argon2id$v=19$m=${m},t=${t},p=${p}$${encodeUnpaddedBase64(salt)}$${encodeUnpaddedBase64(digest)}`;
}

export function hasArgon2Params(parsed: Argon2Hash, params: Argon2Params): boolean {
  return (
    parsed.type === 'argon2id' &&
    parsed.version === 19 &&
    parsed.memoryKb === params.memoryKb &&
    parsed.iterations === params.iterations &&
    parsed.parallelism === params.parallelism &&
    parsed.hashLength === NEW_HASH_BYTES
  );
}

export const argon2Format: HashFormat<Argon2Hash> = {
  id: 'ARGON2',
  aliases: [],
  invalidMessage: 'Password hash is in invalid Argon2 format',
  needsSignerKey: false,
  pool: 'ARGON2',
  hasPrefix: (hash) => hash.startsWith('$argon2i') || hash.startsWith('$argon2d'),
  parse: parseArgon2,
  // node-argon2 recomputes natively on the thread pool and compares with timingSafeEqual.
  verify: (password, parsed) => argon2().verify(parsed.encoded, password),
  memoryBytes: (parsed) => parsed.memoryKb * 1024,
  costClass: (parsed) => scheduledOrCostly(parsed.memoryKb * parsed.iterations >= COSTLY_FROM.argon2WorkKib),
  writer: {
    hash: (password: string, params: NewHashParams) => hashArgon2(password, params.argon2),
    isCurrent: (parsed: Argon2Hash, params: NewHashParams) => hasArgon2Params(parsed, params.argon2),
  },
};
