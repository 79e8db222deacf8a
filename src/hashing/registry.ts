// PasswordHasher: checkImport(hash, algorithm?) → ImportCheck (§6.1 steps 4, 5, 7); verify(password, stored)
// → VerifyOutcome (§6.6); verifyDecoy(password) for unknown users; hash(password) and needsRehash(stored)
// for the configured algorithm. The formats themselves are listed in formats.ts; every hash and every verify of a
// SCHEDULED hash goes through one VerificationScheduler, an INSTANT hash (one digest) is verified at once.
import { hash, randomBytes, randomUUID } from 'node:crypto';
import { parseNamedSignerKeys } from '../config/signer-keys.js';
import { decodeEitherBase64 } from '../base64.js';
import { bcryptIgnoresPartOf } from './bcrypt.js';
import { DEFAULT_COST_LIMITS } from './cost-limits.js';
import {
  HASH_POOLS,
  type HashCostClass,
  type HashCostLimits,
  type HashFormat,
  type HashPool,
  type NewHashParams,
  type ParseResult,
  type VerifyContext,
} from './format.js';
import { detectFormat, findFormatByName, HASH_FORMATS, HASHING_ALGORITHM_NAMES } from './formats.js';
import { InstantHashes, type InstantHash } from './instant-hashes.js';
import type { HashingObserver, QueueState } from './observer.js';
import { VerificationScheduler, type ScheduledWork } from './verification-scheduler.js';
import { describeUnknownHash } from './unknown-hash.js';
import { CoreError, errorMessage } from '../errors.js';
import { javaTrim } from '../normalise/java-trim.js';

/** The id of a hash format (`ARGON2`, `BCRYPT`, …). */
export type HashingAlgorithm = string;

export interface HashingOptions extends NewHashParams {
  /** Base64 signer key of the exporting platform; undefined or empty when not configured. */
  signerKey?: string;
  /** idp_password_hashing_signer_keys: `<name>:<base64 key>`, comma-separated. */
  namedSignerKeys?: string;
  /** Id of the format new hashes are written in; it must have a writer. */
  newHashAlgorithm: HashingAlgorithm;
  argon2PoolSize: number;
  scryptPoolSize: number;
  bcryptPoolSize: number;
  /** Cost bounds for imported hashes; DEFAULT_COST_LIMITS when absent. */
  importLimits?: HashCostLimits;
  /** Shared limits of all formats; without them, one slot per pool size and no deadline. */
  scheduling?: SchedulingOptions;
  /** How many parsed INSTANT hashes are kept for the next sign-in with the same hash; 512 when absent. */
  instantHashCacheSize?: number;
}

export interface SchedulingOptions {
  concurrency: number;
  memoryBudgetBytes: number;
  queueLimit: number;
  /** Longest wait of an interactive hash or verify before a 503. */
  deadlineMs: number;
}

export interface HashOptions {
  /** Bulk work: no deadline, one lane that leaves a slot free for sign-ins. */
  background?: boolean;
  /** Write argon2id instead of bcrypt for a password longer than the 72 bytes bcrypt reads, so no byte is ignored. */
  wholePassword?: boolean;
}

const INSTANT_HASH_CACHE_SIZE = 512;

/** Which check of §6.1 refused the hash: steps 4 and 5 come before the tenant check, the format check (7) after. */
export type ImportFailureStage = 'EMPTY_HASH' | 'EMPTY_ALGORITHM' | 'UNSUPPORTED_ALGORITHM' | 'FORMAT';

export type ImportCheck =
  | { status: 'OK'; hash: string; algorithm: HashingAlgorithm }
  | { status: 'INVALID'; stage: ImportFailureStage; message: string }
  | { status: 'SIGNER_KEY_MISSING' };

export type VerifyOutcome = 'MATCH' | 'NO_MATCH' | 'UNPARSABLE' | 'SIGNER_KEY_MISSING';

const GENERIC_INVALID = 'Password hash is in invalid format';
// What writing a non-argon2 hash allocates (bcrypt's Blowfish state); argon2 allocates its configured memory.
const NEW_HASH_MEMORY_BYTES = 4 * 1024 + 72;
const ACCEPTED_NAMES = HASHING_ALGORITHM_NAMES.map((name) => name.toLowerCase()).join(', ');

/** `hashingAlgorithm` as §6.1 step 5 reads it; undefined when it names no supported algorithm. */
export function parseHashingAlgorithm(name: string): HashingAlgorithm | undefined {
  return findFormatByName(name)?.id;
}

export class PasswordHasher {
  private readonly signerKey: Buffer | undefined;
  private readonly namedSignerKeys: ReadonlyMap<string, Buffer>;
  private readonly verifyContext: VerifyContext;
  readonly scheduler: VerificationScheduler;
  private readonly deadlineMs: number | undefined;
  // Keys single-flight entries, so that no plain digest of a password sits in memory. The key is one one-shot
  // digest of secret, hash and password: an HMAC object per sign-in cost as much as a cheap format's whole verify.
  private readonly flightKeySecret = randomBytes(32).toString('hex');
  private readonly writerFormat: HashFormat<unknown>;
  private readonly importLimits: HashCostLimits;
  private readonly instantHashes: InstantHashes;
  private decoyHash: Promise<string> | undefined;

  constructor(
    private readonly options: HashingOptions,
    private readonly observer?: HashingObserver,
  ) {
    if (options.signerKey) {
      this.signerKey = decodeEitherBase64(options.signerKey);
      if (!this.signerKey) throw new Error("'idp_password_hashing_signer_key' is not valid base64");
    }
    const named = parseNamedSignerKeys(options.namedSignerKeys);
    if (typeof named === 'string') throw new Error(`'idp_password_hashing_signer_keys' ${named}`);
    this.namedSignerKeys = named;
    this.verifyContext = { signerKey: this.signerKey, namedSignerKeys: named };
    const writerFormat = HASH_FORMATS.find((format) => format.id === options.newHashAlgorithm && format.writer);
    if (!writerFormat) throw new Error(`new hashes cannot be written as ${options.newHashAlgorithm}`);
    this.writerFormat = writerFormat;
    this.importLimits = options.importLimits ?? DEFAULT_COST_LIMITS;
    this.instantHashes = new InstantHashes(options.instantHashCacheSize ?? INSTANT_HASH_CACHE_SIZE);
    const poolSizes: Record<HashPool, number> = {
      ARGON2: options.argon2PoolSize,
      BCRYPT: options.bcryptPoolSize,
      SCRYPT: options.scryptPoolSize,
    };
    for (const [name, size] of Object.entries(poolSizes)) {
      if (!Number.isInteger(size) || size < 1) throw new RangeError(`${name} pool size must be a positive integer, got ${size}`);
    }
    const scheduling = options.scheduling;
    this.deadlineMs = scheduling?.deadlineMs;
    this.scheduler = new VerificationScheduler({
      concurrency: scheduling?.concurrency ?? Math.max(...Object.values(poolSizes)),
      memoryBudgetBytes: scheduling?.memoryBudgetBytes ?? Number.MAX_SAFE_INTEGER,
      queueLimit: scheduling?.queueLimit ?? Number.MAX_SAFE_INTEGER,
      kindLimits: poolSizes,
    });
  }

  checkImport(passwordHash: string, hashingAlgorithm?: string): ImportCheck {
    const hash = javaTrim(passwordHash);
    if (hash === '') return invalid('EMPTY_HASH', errorMessage('PASSWORD_HASH_EMPTY'));
    if (hashingAlgorithm === undefined) return this.checkDetected(hash);

    if (javaTrim(hashingAlgorithm) === '') return invalid('EMPTY_ALGORITHM', errorMessage('HASHING_ALGORITHM_EMPTY'));
    const format = findFormatByName(hashingAlgorithm);
    if (!format) return invalid('UNSUPPORTED_ALGORITHM', errorMessage('HASHING_ALGORITHM_UNSUPPORTED', ACCEPTED_NAMES));
    if (format.needsSignerKey && !this.signerKey && this.namedSignerKeys.size === 0) return { status: 'SIGNER_KEY_MISSING' };
    const stored = format.hasPrefix(hash) || !format.fromExport ? hash : format.fromExport(hash);
    if (!format.hasPrefix(stored)) {
      return invalid('FORMAT', errorMessage('PASSWORD_HASH_INVALID', format.invalidMessage, prefixReason(stored)));
    }
    const parsed = format.parse(stored, this.importLimits);
    if (!parsed.ok) return invalid('FORMAT', errorMessage('PASSWORD_HASH_INVALID', format.invalidMessage, parsed.reason));
    const unknownKey = this.unknownKeyName(format, parsed.value);
    if (unknownKey !== undefined) return invalid('FORMAT', errorMessage('PASSWORD_HASH_INVALID', format.invalidMessage, unknownKey));
    if (this.lacksSignerKey(format, parsed)) return { status: 'SIGNER_KEY_MISSING' };
    return { status: 'OK', hash: stored, algorithm: format.id };
  }

  /**
   * Why a digest of `algorithm` imported for another purpose (recovery codes) is refused by the import bounds of
   * password hashes; undefined when it is accepted.
   */
  importRefusal(hash: string, algorithm: HashingAlgorithm): string | undefined {
    const format = findFormatByName(algorithm);
    if (!format) return `${algorithm} is not a supported format`;
    const parsed = format.parse(hash, this.importLimits);
    return parsed.ok ? undefined : parsed.reason;
  }

  /**
   * `lane` names the account whose verifications take turns with other accounts' (default: the stored hash);
   * `costly` puts the verification in the costly share whatever its format's class (one guess that runs many).
   */
  async verify(password: string, storedHash: string, lane: string = storedHash, costly = false): Promise<VerifyOutcome> {
    // While stopping, the scheduler answers every interactive verification with a 503, instant ones too.
    const known = this.instantHashes.get(storedHash);
    if (known && !this.scheduler.stopping) return this.verifyInstantly(known, password);
    const format = detectFormat(storedHash);
    if (!format) return 'UNPARSABLE';
    const parsed = format.parse(storedHash);
    if (this.lacksSignerKey(format, parsed)) return 'SIGNER_KEY_MISSING';
    if (!parsed.ok) return 'UNPARSABLE';
    if (format.verifyNow && format.costClass(parsed.value) === 'INSTANT') {
      const entry = { format, parsed: parsed.value };
      this.instantHashes.remember(storedHash, entry);
      if (!this.scheduler.stopping) return this.verifyInstantly(entry, password);
    }
    const matched = await this.runVerification(format, password, storedHash, parsed.value, lane, costly);
    return matched ? 'MATCH' : 'NO_MATCH';
  }

  /** The cost class a sign-in against this stored hash pays; undefined when it does not parse. */
  costClassOf(storedHash: string): HashCostClass | undefined {
    if (this.instantHashes.get(storedHash)) return 'INSTANT';
    const format = detectFormat(storedHash);
    const parsed = format?.parse(storedHash);
    return format && parsed?.ok ? format.costClass(parsed.value) : undefined;
  }

  /** Operations running and waiting per pool (hashing and verifying share each limit). */
  queueStates(): Record<HashPool, QueueState> {
    return Object.fromEntries(HASH_POOLS.map((pool) => [pool, this.scheduler.kindState(pool)])) as Record<HashPool, QueueState>;
  }

  /** Spends about the time of a failed verify so that unknown users cannot be told apart by timing. */
  async verifyDecoy(password: string, lane?: string): Promise<void> {
    this.decoyHash ??= this.hash(randomBytes(16).toString('hex')).catch((error: unknown) => {
      this.decoyHash = undefined;
      throw error;
    });
    const decoy = await this.decoyHash;
    await this.verify(password, decoy, lane ?? decoy);
  }

  /** Whether a new hash of this password would ignore part of it (bcrypt reads 72 bytes). */
  writerIgnoresPartOf(password: string): boolean {
    return this.writerFormat.id === 'BCRYPT' && bcryptIgnoresPartOf(password);
  }

  hash(password: string, { background = false, wholePassword = false }: HashOptions = {}): Promise<string> {
    const format = wholePassword && this.writerIgnoresPartOf(password) ? findFormatByName('ARGON2')! : this.writerFormat;
    return this.schedule({
      lane: background ? 'background' : `hash:${randomUUID()}`,
      laneLimit: background ? Math.max(1, (this.options.scheduling?.concurrency ?? 1) - 1) : 1,
      kind: format.pool,
      memoryBytes: format.pool === 'ARGON2' ? this.options.argon2.memoryKb * 1024 : NEW_HASH_MEMORY_BYTES,
      deadlineMs: background ? undefined : this.deadlineMs,
      run: () => format.writer!.hash(password, this.options),
    });
  }

  needsRehash(storedHash: string): boolean {
    const parsed = this.writerFormat.parse(storedHash);
    return !parsed.ok || !this.writerFormat.writer!.isCurrent(parsed.value, this.options);
  }

  /** The one place a verification is scheduled: it waits for its turn and its memory, then runs off the event loop. */
  private async runVerification(
    format: HashFormat<unknown>,
    password: string,
    storedHash: string,
    parsed: unknown,
    lane: string,
    costly: boolean,
  ): Promise<boolean> {
    const context = this.verifyContext;
    const queuedAt = performance.now();
    let startedAt = queuedAt;
    const matched = await this.schedule({
      lane,
      flightKey: hash('sha256', `${this.flightKeySecret}\0${storedHash}\0${password}`, 'base64'),
      kind: format.pool,
      memoryBytes: format.memoryBytes(parsed),
      costly: costly || format.costClass(parsed) === 'COSTLY',
      deadlineMs: this.deadlineMs,
      run: () => {
        startedAt = performance.now();
        return format.verify(password, parsed, context);
      },
    });
    const [waitSeconds, verifySeconds] = [(startedAt - queuedAt) / 1000, (performance.now() - startedAt) / 1000];
    this.observer?.verified({ algorithm: format.id, pool: format.pool, matched, waitSeconds, verifySeconds });
    return matched;
  }

  /**
   * One digest, at once on this thread: single flight, the queue and the memory budget are there for verifications
   * that take milliseconds to seconds, and their bookkeeping would cost more than this whole verification.
   */
  private verifyInstantly({ format, parsed }: InstantHash, password: string): VerifyOutcome {
    const observer = this.observer;
    const startedAt = observer ? performance.now() : 0;
    const matched = format.verifyNow!(password, parsed, this.verifyContext);
    if (observer) {
      const verifySeconds = (performance.now() - startedAt) / 1000;
      observer.verified({ algorithm: format.id, pool: format.pool, matched, verifySeconds });
    }
    return matched ? 'MATCH' : 'NO_MATCH';
  }

  /** Schedules work and reports a refusal (503) to the observer. */
  private async schedule<T>(work: ScheduledWork<T>): Promise<T> {
    try {
      return await this.scheduler.schedule(work);
    } catch (error) {
      if (error instanceof CoreError && error.code === 'VERIFICATION_BUSY') this.observer?.rejected(work.kind as HashPool);
      throw error;
    }
  }

  private checkDetected(hash: string): ImportCheck {
    const format = detectFormat(hash);
    if (!format) return invalid('FORMAT', errorMessage('PASSWORD_HASH_INVALID', GENERIC_INVALID, prefixReason(hash)));
    const parsed = format.parse(hash, this.importLimits);
    const unknownKey = parsed.ok ? this.unknownKeyName(format, parsed.value) : undefined;
    if (unknownKey !== undefined) return invalid('FORMAT', errorMessage('PASSWORD_HASH_INVALID', GENERIC_INVALID, unknownKey));
    if (this.lacksSignerKey(format, parsed)) return { status: 'SIGNER_KEY_MISSING' };
    if (!parsed.ok) return invalid('FORMAT', errorMessage('PASSWORD_HASH_INVALID', GENERIC_INVALID, parsed.reason));
    return { status: 'OK', hash, algorithm: format.id };
  }

  /** Only a hash that has the full shape of the scrypt variant asks for the key (§6.1, absent algorithm). */
  private lacksSignerKey(format: HashFormat<unknown>, parsed: ParseResult<unknown>): boolean {
    if (!format.needsSignerKey) return false;
    const name = parsed.ok ? format.signerKeyName?.(parsed.value) : undefined;
    if (name !== undefined) return !this.namedSignerKeys.has(name);
    return !this.signerKey && (parsed.ok || parsed.recognised === true);
  }

  /** Why an imported hash is refused for naming a signer key the core does not hold; undefined when it does not. */
  private unknownKeyName(format: HashFormat<unknown>, parsed: unknown): string | undefined {
    const name = format.signerKeyName?.(parsed);
    if (name === undefined || this.namedSignerKeys.has(name)) return undefined;
    return `signer key ${name} is not in idp_password_hashing_signer_keys`;
  }
}

/** Why a string is not in the expected format; undefined when there is nothing more specific to say. */
function prefixReason(hash: string): string | undefined {
  const other = detectFormat(hash);
  if (other) return `the hash is in the ${other.id} format; set hashingAlgorithm to ${other.id.toLowerCase()}`;
  return describeUnknownHash(hash);
}

function invalid(stage: ImportFailureStage, message: string): ImportCheck {
  return { status: 'INVALID', stage, message };
}
