/**
 * `recognised` marks a hash that has this format's full shape but bad values, so callers can tell
 * "this is a scrypt-variant hash" (signer key needed) from "this is not a hash of this kind at all".
 */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; reason: string; recognised?: boolean };

export interface VerifyContext {
  signerKey?: Buffer;
  /** idp_password_hashing_signer_keys: a hash that names its key (`$k=<name>`) is verified with that one. */
  namedSignerKeys?: ReadonlyMap<string, Buffer>;
}

/**
 * Cost bounds an imported hash must stay within. They are checked at import; at sign-in a stored hash is only held
 * to the hard limits each format file states, so lowering a bound never locks out users imported before.
 */
export interface HashCostLimits {
  /** Memory of one verification (argon2 m, scrypt 128·N·r·p), in KiB. */
  maxMemoryKib: number;
  /** argon2 m × t: the memory written over all passes, which is what its time grows with. */
  maxArgon2WorkKib: number;
  maxBcryptCost: number;
  maxPbkdf2Iterations: number;
  /** SHA-crypt rounds (`$5$`, `$6$`); md5-crypt has a fixed 1000. */
  maxCryptRounds: number;
}

/** The config key that raises each bound; refusals name it. */
export const COST_LIMIT_KEYS: Readonly<Record<keyof HashCostLimits, string>> = {
  maxMemoryKib: 'imported_hash_max_memory_kib',
  maxArgon2WorkKib: 'imported_hash_max_argon2_work_kib',
  maxBcryptCost: 'imported_hash_max_bcrypt_cost',
  maxPbkdf2Iterations: 'imported_hash_max_pbkdf2_iterations',
  maxCryptRounds: 'imported_hash_max_crypt_rounds',
};

/** The refusal of a hash whose cost is over a configurable bound: the parameter, its value, the limit and the key. */
export function overCostLimit(
  parameter: string,
  value: number,
  limits: HashCostLimits,
  bound: keyof HashCostLimits,
  unit = '',
): { ok: false; reason: string; recognised: boolean } {
  const limit = limits[bound];
  return fail(`${parameter} = ${value}${unit} is over the limit of ${limit}${unit} (raise ${COST_LIMIT_KEYS[bound]} to accept it)`, true);
}

/** The configured parameters for hashes the core writes itself (sign-up, password change, rehash). */
export interface NewHashParams {
  bcryptLogRounds: number;
  argon2: { iterations: number; memoryKb: number; parallelism: number };
}

/**
 * Which bounded pool a verification waits in: memory-hard formats have their own, everything CPU-bound
 * shares the bcrypt one.
 */
export const HASH_POOLS = ['ARGON2', 'BCRYPT', 'SCRYPT'] as const;
export type HashPool = (typeof HASH_POOLS)[number];

/**
 * How one parsed hash is verified. `SCHEDULED`: it waits for a slot of the verification scheduler (single flight,
 * memory budget, bounded queue, deadline), which is what keeps hashes with rounds, iterations or memory cost from
 * piling up. `COSTLY`: scheduled too, but its parameters make one verification cost several ordinary sign-ins
 * (`COSTLY_FROM` in cost-limits.ts): such verifications share only part of the scheduler, failed ones are limited
 * per client and per account, and their failures have a time floor of their own. `INSTANT`: one plain, salted or
 * keyed digest over inputs the parse bounds, a few microseconds on the calling thread, less than the scheduler's own
 * bookkeeping; it runs at once through `verifyNow`.
 */
export type HashCostClass = 'INSTANT' | 'SCHEDULED' | 'COSTLY';

/** One password-hash format. Adding a format is one file exporting this plus one line in `formats.ts`. */
export interface HashFormat<T> {
  /** The algorithm id reported by an import check; also the first accepted `hashingAlgorithm` value. */
  readonly id: string;
  /** Further accepted `hashingAlgorithm` values (upper case). */
  readonly aliases: readonly string[];
  /** The §6.1 import error for a hash rejected when this algorithm was named. */
  readonly invalidMessage: string;
  readonly needsSignerKey: boolean;
  /** The named signer key a parsed hash asks for (`$k=<name>`); undefined: the one unnamed key. */
  signerKeyName?(parsed: T): string | undefined;
  readonly pool: HashPool;
  /** Cheap check that the string claims to be this format; `parse` then decides whether it is valid. */
  hasPrefix(hash: string): boolean;
  /**
   * For formats whose source system stores no prefix: the self-describing string for a value exported as is.
   * Applied at import when this algorithm is named and the value lacks the prefix; the result is what is stored.
   */
  fromExport?(exported: string): string;
  /** Validates format and parameter bounds; cost bounds from `limits` when given (import), hard limits only otherwise. */
  parse(hash: string, limits?: HashCostLimits): ParseResult<T>;
  /** Recomputes and compares in constant time, off the event loop. */
  verify(password: string, parsed: T, context: VerifyContext): Promise<boolean>;
  /** Decided from the parsed parameters where they vary within the format (an LDAP `{CRYPT}` value, say). */
  costClass(parsed: T): HashCostClass;
  /** The synchronous verification of a hash whose class is `INSTANT`; formats that are never instant leave it out. */
  verifyNow?(password: string, parsed: T, context: VerifyContext): boolean;
  /** Peak memory of one verification, in bytes, so a scheduler can budget verifications in flight. */
  memoryBytes(parsed: T): number;
  /**
   * True for formats that are fast to guess (plain and salted digests, HMAC, md5-crypt, phpass): they should be
   * moved to the configured algorithm by `password_rehash_on_signin`. Absent means not weak.
   */
  isWeak?(parsed: T): boolean;
  /** Present on the formats the core can write new hashes in (`password_hashing_alg`). */
  readonly writer?: HashWriter<T>;
}

export interface HashWriter<T> {
  hash(password: string, params: NewHashParams): Promise<string>;
  /** Whether a stored hash already has the configured parameters, so a rehash would change nothing. */
  isCurrent(parsed: T, params: NewHashParams): boolean;
}

export const scheduled = (): HashCostClass => 'SCHEDULED';
export const scheduledOrCostly = (costly: boolean): HashCostClass => (costly ? 'COSTLY' : 'SCHEDULED');

export function fail(reason: string, recognised = false): { ok: false; reason: string; recognised: boolean } {
  return { ok: false, reason, recognised };
}
