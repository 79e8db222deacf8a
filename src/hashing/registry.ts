// PasswordHasher: checkImport(hash, algorithm?) → ImportCheck (§6.1 steps 4, 5, 7); verify(password, stored)
// → VerifyOutcome (§6.6); verifyDecoy(password) for unknown users; hash(password) and needsRehash(stored)
// for the configured algorithm. Every hash and verify goes through one VerificationScheduler.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { argon2Verifier, hashArgon2, hasArgon2Params } from './argon2.js';
import { decodeBase64 } from './base64.js';
import { BCRYPT_MEMORY_BYTES, bcryptVerifier, effectiveBcryptCost, hashBcrypt } from './bcrypt.js';
import { idpScryptVerifier } from './idp-scrypt.js';
import { VerificationScheduler } from './verification-scheduler.js';
import { javaTrim } from '../normalise/java-trim.js';
import type { HashingAlgorithm, ParseResult, Verifier } from './verifier.js';

export type { HashingAlgorithm } from './verifier.js';

export interface HashingOptions {
  /** Base64 signer key of the exporting platform; undefined or empty when not configured. */
  signerKey?: string;
  newHashAlgorithm: 'BCRYPT' | 'ARGON2';
  bcryptLogRounds: number;
  argon2: { iterations: number; memoryKb: number; parallelism: number };
  argon2PoolSize: number;
  scryptPoolSize: number;
  bcryptPoolSize: number;
  /** Shared limits of all algorithms; without them, one slot per pool size and no deadline. */
  scheduling?: SchedulingOptions;
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
}

export type ImportCheck =
  | { status: 'OK'; hash: string; algorithm: HashingAlgorithm }
  | { status: 'INVALID'; message: string }
  | { status: 'SIGNER_KEY_MISSING' };

export type VerifyOutcome = 'MATCH' | 'NO_MATCH' | 'UNPARSABLE' | 'SIGNER_KEY_MISSING';

// Detection order of §6.6; the prefixes are disjoint, so the order only matters for readability.
const VERIFIERS: ReadonlyArray<Verifier<unknown>> = [argon2Verifier, bcryptVerifier, idpScryptVerifier];

const ALGORITHM_NAMES: Readonly<Record<string, Verifier<unknown>>> = {
  ARGON2: argon2Verifier,
  BCRYPT: bcryptVerifier,
  IDP_SCRYPT: idpScryptVerifier,
  FIREBASE_SCRYPT: idpScryptVerifier,
};

const GENERIC_INVALID = 'Password hash is in invalid format';

/** `hashingAlgorithm` as §6.1 step 5 reads it; undefined when it names no supported algorithm. */
export function parseHashingAlgorithm(name: string): HashingAlgorithm | undefined {
  return ALGORITHM_NAMES[javaTrim(name).toUpperCase()]?.id;
}

export class PasswordHasher {
  private readonly signerKey: Buffer | undefined;
  readonly scheduler: VerificationScheduler;
  private readonly deadlineMs: number | undefined;
  // Keys single-flight entries, so that no plain digest of a password sits in memory.
  private readonly flightKeySecret = randomBytes(32);
  private decoyHash: Promise<string> | undefined;

  constructor(private readonly options: HashingOptions) {
    if (options.signerKey) {
      this.signerKey = decodeBase64(options.signerKey);
      if (!this.signerKey) throw new Error("'idp_password_hashing_signer_key' is not valid base64");
    }
    const poolSizes = { ARGON2: options.argon2PoolSize, BCRYPT: options.bcryptPoolSize, IDP_SCRYPT: options.scryptPoolSize };
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
    if (hash === '') return invalid('Password hash cannot be an empty string');
    if (hashingAlgorithm === undefined) return this.checkDetected(hash);

    const name = javaTrim(hashingAlgorithm).toUpperCase();
    if (name === '') return invalid('Hashing Algorithm cannot be an empty string');
    const verifier = ALGORITHM_NAMES[name];
    if (!verifier) return invalid('Unsupported password hashing algorithm');
    if (verifier.needsSignerKey && !this.signerKey) return { status: 'SIGNER_KEY_MISSING' };
    if (!verifier.hasPrefix(hash)) return invalid(verifier.invalidMessage);
    const parsed = verifier.parse(hash);
    if (!parsed.ok) return invalid(`${verifier.invalidMessage}: ${parsed.reason}`);
    return { status: 'OK', hash, algorithm: verifier.id };
  }

  /** `lane` names the account whose verifications take turns with other accounts' (default: the stored hash). */
  async verify(password: string, storedHash: string, lane: string = storedHash): Promise<VerifyOutcome> {
    const verifier = detect(storedHash);
    if (!verifier) return 'UNPARSABLE';
    const parsed = verifier.parse(storedHash);
    if (this.lacksSignerKey(verifier, parsed)) return 'SIGNER_KEY_MISSING';
    if (!parsed.ok) return 'UNPARSABLE';
    const context = { signerKey: this.signerKey };
    const matched = await this.scheduler.schedule({
      lane,
      flightKey: createHmac('sha256', this.flightKeySecret).update(storedHash).update('\0').update(password).digest('base64'),
      kind: verifier.id,
      memoryBytes: verifier.memoryBytes(parsed.value),
      deadlineMs: this.deadlineMs,
      run: () => verifier.verify(password, parsed.value, context),
    });
    return matched ? 'MATCH' : 'NO_MATCH';
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

  hash(password: string, { background = false }: HashOptions = {}): Promise<string> {
    const argon2 = this.options.newHashAlgorithm === 'ARGON2';
    return this.scheduler.schedule({
      lane: background ? 'background' : `hash:${randomUUID()}`,
      laneLimit: background ? Math.max(1, (this.options.scheduling?.concurrency ?? 1) - 1) : 1,
      kind: argon2 ? 'ARGON2' : 'BCRYPT',
      memoryBytes: argon2 ? this.options.argon2.memoryKb * 1024 : BCRYPT_MEMORY_BYTES,
      deadlineMs: background ? undefined : this.deadlineMs,
      run: () => (argon2 ? hashArgon2(password, this.options.argon2) : hashBcrypt(password, this.options.bcryptLogRounds)),
    });
  }

  needsRehash(storedHash: string): boolean {
    if (this.options.newHashAlgorithm === 'ARGON2') {
      const parsed = argon2Verifier.parse(storedHash);
      return !parsed.ok || !hasArgon2Params(parsed.value, this.options.argon2);
    }
    const parsed = bcryptVerifier.parse(storedHash);
    return !parsed.ok || parsed.value.cost !== effectiveBcryptCost(this.options.bcryptLogRounds);
  }

  private checkDetected(hash: string): ImportCheck {
    const verifier = detect(hash);
    if (!verifier) return invalid(GENERIC_INVALID);
    const parsed = verifier.parse(hash);
    if (this.lacksSignerKey(verifier, parsed)) return { status: 'SIGNER_KEY_MISSING' };
    if (!parsed.ok) return invalid(`${GENERIC_INVALID}: ${parsed.reason}`);
    return { status: 'OK', hash, algorithm: verifier.id };
  }

  /** Only a hash that has the full shape of the scrypt variant asks for the key (§6.1, absent algorithm). */
  private lacksSignerKey(verifier: Verifier<unknown>, parsed: ParseResult<unknown>): boolean {
    return verifier.needsSignerKey && !this.signerKey && (parsed.ok || parsed.recognised === true);
  }
}

function detect(hash: string): Verifier<unknown> | undefined {
  return VERIFIERS.find((verifier) => verifier.hasPrefix(hash));
}

function invalid(message: string): ImportCheck {
  return { status: 'INVALID', message };
}
