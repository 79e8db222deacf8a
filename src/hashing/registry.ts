// PasswordHasher: checkImport(hash, algorithm?) → ImportCheck (§6.1 steps 4, 5, 7); verify(password, stored)
// → VerifyOutcome (§6.6); verifyDecoy(password) for unknown users; hash(password) and needsRehash(stored)
// for the configured algorithm. Each algorithm runs behind its own ConcurrencyLimiter.
import { randomBytes } from 'node:crypto';
import { argon2Verifier, hashArgon2, hasArgon2Params } from './argon2.js';
import { decodeBase64 } from './base64.js';
import { bcryptVerifier, effectiveBcryptCost, hashBcrypt } from './bcrypt.js';
import { idpScryptVerifier } from './idp-scrypt.js';
import { ConcurrencyLimiter } from './limiter.js';
import type { HashingObserver, QueueState } from './observer.js';
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
  private readonly limiters: Record<HashingAlgorithm, ConcurrencyLimiter>;
  private decoyHash: Promise<string> | undefined;

  constructor(
    private readonly options: HashingOptions,
    private readonly observer?: HashingObserver,
  ) {
    if (options.signerKey) {
      this.signerKey = decodeBase64(options.signerKey);
      if (!this.signerKey) throw new Error("'idp_password_hashing_signer_key' is not valid base64");
    }
    this.limiters = {
      ARGON2: new ConcurrencyLimiter(options.argon2PoolSize),
      BCRYPT: new ConcurrencyLimiter(options.bcryptPoolSize),
      IDP_SCRYPT: new ConcurrencyLimiter(options.scryptPoolSize),
    };
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

  async verify(password: string, storedHash: string): Promise<VerifyOutcome> {
    const verifier = detect(storedHash);
    if (!verifier) return 'UNPARSABLE';
    const parsed = verifier.parse(storedHash);
    if (this.lacksSignerKey(verifier, parsed)) return 'SIGNER_KEY_MISSING';
    if (!parsed.ok) return 'UNPARSABLE';
    const context = { signerKey: this.signerKey };
    const queuedAt = performance.now();
    let startedAt = queuedAt;
    const matched = await this.limiters[verifier.id].run(() => {
      startedAt = performance.now();
      return verifier.verify(password, parsed.value, context);
    });
    const waitSeconds = (startedAt - queuedAt) / 1000;
    this.observer?.verified({ algorithm: verifier.id, matched, waitSeconds, verifySeconds: (performance.now() - startedAt) / 1000 });
    return matched ? 'MATCH' : 'NO_MATCH';
  }

  /** Operations running and waiting per algorithm (hashing and verifying share each limit). */
  queueStates(): Record<HashingAlgorithm, QueueState> {
    const state = (limiter: ConcurrencyLimiter) => ({ running: limiter.running, queued: limiter.queued });
    return { ARGON2: state(this.limiters.ARGON2), BCRYPT: state(this.limiters.BCRYPT), IDP_SCRYPT: state(this.limiters.IDP_SCRYPT) };
  }

  /** Spends about the time of a failed verify so that unknown users cannot be told apart by timing. */
  async verifyDecoy(password: string): Promise<void> {
    this.decoyHash ??= this.hash(randomBytes(16).toString('hex')).catch((error: unknown) => {
      this.decoyHash = undefined;
      throw error;
    });
    await this.verify(password, await this.decoyHash);
  }

  hash(password: string): Promise<string> {
    if (this.options.newHashAlgorithm === 'ARGON2') {
      return this.limiters.ARGON2.run(() => hashArgon2(password, this.options.argon2));
    }
    return this.limiters.BCRYPT.run(() => hashBcrypt(password, this.options.bcryptLogRounds));
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
