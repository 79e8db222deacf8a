import { randomUUID } from 'node:crypto';
import { coreError, CoreError, legacyUnavailable, signInLimited, type ErrorCode } from '../../errors.js';
import {
  findEmailPasswordCredentials,
  findEmailPasswordUserByEmail,
  insertEmailPasswordUser,
  updateEmailPasswordUser,
  upsertEmailPasswordUser,
} from './repository.js';
import { replaceEmailPasswordHash } from '../../users/login-method-repository.js';
import {
  findLoginMethodById,
  findUserOfLoginMethod,
  loginMethodView,
  type LoginMethodRow,
  type StoredUser,
} from '../../users/repository.js';
import type { SignedIn } from '../../users/user-object.js';
import type { ImportCheck, ImportFailureStage } from '../../hashing/registry.js';
import { checkEmail, contactLookup, findByContact, legacyEmailKey, requireEmail } from '../../normalise/contact.js';
import { assertMaxLength } from '../../normalise/length-limits.js';
import type { ServiceDependencies } from '../../service-deps.js';
import { isLazyPointer, lazyPointerFormat, pinLegacyLogin, unknownSourceOf } from '../../hashing/lazy-pointer.js';
import { readPasswordHash } from '../../lazy-migration/repository.js';
import type { LazyMigrationService } from '../../lazy-migration/service.js';
import { SignInFailureFloor, type FloorClass } from './signin-floor.js';
import { CostlyFailureLimit } from './costly-failure-limit.js';

export interface ImportRequest {
  email: string;
  passwordHash: string;
  hashingAlgorithm?: string;
}
/** An import whose input checks passed; its format check is still to be reported, after the tenant check. */
export interface CheckedImport {
  email: string;
  check: ImportCheck;
}
export type ImportResult = { status: 'OK'; user: StoredUser; didUserAlreadyExist: boolean };
export type SignInResult = ({ status: 'OK' } & SignedIn) | { status: 'WRONG_CREDENTIALS_ERROR' };
export type SignUpResult = ({ status: 'OK' } & SignedIn) | { status: 'EMAIL_ALREADY_EXISTS_ERROR' };
export type GetUserResult = { status: 'OK'; user: StoredUser } | { status: 'UNKNOWN_USER_ID_ERROR' } | { status: 'UNKNOWN_EMAIL_ERROR' };
export type UpdateUserResult =
  | { status: 'OK' | 'UNKNOWN_USER_ID_ERROR' | 'EMAIL_ALREADY_EXISTS_ERROR' }
  | { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR'; reason: 'New email is associated with another primary user ID' };

const REFUSAL_CODES: Record<ImportFailureStage, ErrorCode> = {
  EMPTY_HASH: 'PASSWORD_HASH_EMPTY',
  EMPTY_ALGORITHM: 'HASHING_ALGORITHM_EMPTY',
  UNSUPPORTED_ALGORITHM: 'HASHING_ALGORITHM_UNSUPPORTED',
  FORMAT: 'PASSWORD_HASH_INVALID',
};

// The registry words its refusals from the catalog already; this names the entry.
function importRefusal(check: Extract<ImportCheck, { status: 'INVALID' }>): CoreError {
  return new CoreError(REFUSAL_CODES[check.stage], check.message);
}

// Placeholder addresses some SDKs create for users without a real email (§6.3).
function isFakeEmail(email: string): boolean {
  return email.endsWith('@stfakeemail.supertokens.com') || email.endsWith('.fakeemail.com');
}

// An address stored by an earlier version that the rules now refuse may be sent again unchanged.
function nextEmail(current: string | null, given: string): string {
  if (current !== null && legacyEmailKey(given) === current && !checkEmail(given).ok) return current;
  return requireEmail(given);
}

const WRONG_CREDENTIALS = { status: 'WRONG_CREDENTIALS_ERROR' } as const;

/** What one sign-in learns on its way: where it came from, and which failure floor holds it. */
interface SignInAttempt {
  clientIp?: string;
  floorClass: FloorClass;
}

export class EmailPasswordService {
  private readonly rehashing = new Set<string>();
  private readonly pendingRehashes = new Set<Promise<void>>();
  private readonly failureFloor: SignInFailureFloor;
  private readonly costlyFailures: CostlyFailureLimit;

  constructor(
    private readonly deps: ServiceDependencies,
    private readonly lazyMigration: LazyMigrationService,
  ) {
    this.failureFloor = new SignInFailureFloor(deps.config.signin_failure_min_duration_ms);
    this.costlyFailures = new CostlyFailureLimit(
      deps.pool,
      deps.config.costly_signin_failures_per_account,
      deps.config.costly_signin_failures_per_client,
      deps.clock,
    );
  }

  /** §6.1 steps 4 and 5, which the contract reports before the tenant check. */
  checkImportInput(input: ImportRequest): CheckedImport {
    assertMaxLength('passwordHash', input.passwordHash);
    const check = this.deps.hasher.checkImport(input.passwordHash, input.hashingAlgorithm);
    if (check.status === 'INVALID' && check.stage !== 'FORMAT') throw coreError('PASSWORD_HASH_INVALID', check.message);
    return { email: input.email, check };
  }

  async importPasswordHash(tenantId: string, { email: givenEmail, check }: CheckedImport): Promise<ImportResult> {
    if (check.status === 'SIGNER_KEY_MISSING') throw coreError('SIGNER_KEY_MISSING');
    if (check.status === 'INVALID') throw importRefusal(check);
    const pending = check.algorithm === lazyPointerFormat.id;
    if (pending) this.assertKnownSource(check.hash);
    const email = requireEmail(givenEmail);
    assertMaxLength('email', email);
    const passwordHash = pending ? pinLegacyLogin(check.hash, email) : check.hash;
    const user = { userId: randomUUID(), tenantId, email, passwordHash, timeJoined: this.deps.clock() };
    const { row, existed } = await upsertEmailPasswordUser(this.deps.pool, user, pending);
    return { status: 'OK', user: await findUserOfLoginMethod(this.deps.pool, row), didUserAlreadyExist: existed };
  }

  // A pointer may only name a source this core is configured with, so an import mistake shows now, not at sign-in.
  private assertKnownSource(pointer: string): void {
    const unknown = unknownSourceOf(pointer, this.deps.config.lazy_migration.sources);
    if (unknown !== undefined) throw coreError('PASSWORD_HASH_INVALID', lazyPointerFormat.invalidMessage, unknown);
  }

  async signIn(tenantId: string, email: string, password: string, clientIp?: string): Promise<SignInResult> {
    const startedAt = performance.now();
    const attempt: SignInAttempt = { clientIp, floorClass: 'standard' };
    const result = await this.findAndVerify(tenantId, email, password, attempt);
    this.failureFloor.record(performance.now() - startedAt, attempt.floorClass);
    if (result.status !== 'OK') await this.failureFloor.holdUntilFloor(startedAt, attempt.floorClass);
    return result;
  }

  private async findAndVerify(tenantId: string, email: string, password: string, attempt: SignInAttempt): Promise<SignInResult> {
    // An address the rules refuse gets no 400 here: only an account stored under it earlier can match.
    const { keys } = contactLookup('email', email);
    const found = await findByContact({ keys }, (key) => findEmailPasswordCredentials(this.deps.pool, tenantId, key));
    if (!found) {
      // An unknown email takes turns like an account of its own, so a flood of them queues like one on a real account.
      await this.deps.hasher.verifyDecoy(password, `unknown:${tenantId}:${keys[0] ?? email}`);
      return WRONG_CREDENTIALS;
    }
    if (isLazyPointer(found.passwordHash)) return this.signInPending(tenantId, found.row, found.passwordHash, password, attempt);
    return this.verifyStored(found.row, found.passwordHash, password, attempt);
  }

  private async verifyStored(row: LoginMethodRow, storedHash: string, password: string, attempt: SignInAttempt): Promise<SignInResult> {
    if (this.deps.hasher.costClassOf(storedHash) === 'COSTLY') return this.verifyCostly(row, storedHash, password, attempt);
    return this.verifyOrdinary(row, storedHash, password);
  }

  // A hash that costs several ordinary sign-ins: failed attempts are limited per account and per client, and their
  // failures are held to the costly floor.
  private async verifyCostly(row: LoginMethodRow, storedHash: string, password: string, attempt: SignInAttempt): Promise<SignInResult> {
    attempt.floorClass = 'costly';
    const waitMs = await this.costlyFailures.waitMs(row.user_id, attempt.clientIp);
    if (waitMs > 0) {
      this.deps.log.info({ userId: row.user_id }, 'sign-in refused: too many failed attempts against a costly hash');
      throw signInLimited(waitMs);
    }
    const result = await this.verifyOrdinary(row, storedHash, password);
    if (result.status === 'OK') await this.costlyFailures.recordSuccess(row.user_id);
    else await this.costlyFailures.recordFailure(row.user_id, attempt.clientIp);
    return result;
  }

  private async verifyOrdinary(row: LoginMethodRow, storedHash: string, password: string): Promise<SignInResult> {
    const outcome = await this.deps.hasher.verify(password, storedHash);
    if (outcome === 'SIGNER_KEY_MISSING') throw coreError('SIGNER_KEY_MISSING');
    if (outcome === 'UNPARSABLE') {
      this.deps.log.error({ userId: row.user_id }, 'stored password hash does not parse; sign-in refused');
      await this.deps.hasher.verifyDecoy(password, row.user_id);
      return WRONG_CREDENTIALS;
    }
    if (outcome === 'NO_MATCH') return WRONG_CREDENTIALS;
    this.scheduleRehash(row.user_id, storedHash, password);
    return this.signedIn(row);
  }

  // A user imported for lazy migration: the old provider is asked once, and a confirmed password is stored hashed.
  private async signInPending(
    tenantId: string,
    row: LoginMethodRow,
    pointer: string,
    password: string,
    attempt: SignInAttempt,
  ): Promise<SignInResult> {
    const outcome = await this.lazyMigration.signIn({
      userId: row.user_id,
      tenantId,
      email: row.email ?? '',
      externalUserId: row.external_user_id ?? undefined,
      pointer,
      password,
      clientIp: attempt.clientIp,
    });
    switch (outcome.status) {
      case 'ADOPTED':
        return this.signedIn(row);
      case 'UNAVAILABLE':
        throw legacyUnavailable(outcome.retryAfterMs);
      case 'THROTTLED':
        throw signInLimited(outcome.retryAfterMs);
      case 'STORED_HASH_CHANGED': {
        const stored = await readPasswordHash(this.deps.pool, row.user_id);
        if (stored === undefined || isLazyPointer(stored)) return WRONG_CREDENTIALS;
        return this.verifyStored(row, stored, password, attempt);
      }
      case 'WRONG_CREDENTIALS':
        if (outcome.spendDecoy) await this.deps.hasher.verifyDecoy(password, row.user_id);
        return WRONG_CREDENTIALS;
    }
  }

  async signUp(input: { tenantId: string; email: string; password: string }): Promise<SignUpResult> {
    const email = requireEmail(input.email);
    assertMaxLength('email', email);
    const passwordHash = await this.deps.hasher.hash(input.password);
    const user = { userId: randomUUID(), tenantId: input.tenantId, email, passwordHash, timeJoined: this.deps.clock() };
    const row = await insertEmailPasswordUser(this.deps.pool, user, isFakeEmail(email));
    // A new login method is always standalone (AL-10.1).
    return row ? { status: 'OK', user: loginMethodView(row), loginMethod: row } : { status: 'EMAIL_ALREADY_EXISTS_ERROR' };
  }

  private async signedIn(row: LoginMethodRow): Promise<SignInResult> {
    return { status: 'OK', user: await findUserOfLoginMethod(this.deps.pool, row), loginMethod: row };
  }

  // By id: that login method alone (AL-10.7).
  async getUserById(userId: string): Promise<GetUserResult> {
    const row = await findLoginMethodById(this.deps.pool, userId);
    return row?.recipe_id === 'emailpassword' ? { status: 'OK', user: loginMethodView(row) } : { status: 'UNKNOWN_USER_ID_ERROR' };
  }

  // By email: the whole user owning that login method (AL-10.7).
  async getUserByEmail(tenantId: string, email: string): Promise<GetUserResult> {
    const row = await findByContact(contactLookup('email', email), (key) => findEmailPasswordUserByEmail(this.deps.pool, tenantId, key));
    return row ? { status: 'OK', user: await findUserOfLoginMethod(this.deps.pool, row) } : { status: 'UNKNOWN_EMAIL_ERROR' };
  }

  async updateUser(recipeUserId: string, changes: { email?: string; password?: string }): Promise<UpdateUserResult> {
    const row = await findLoginMethodById(this.deps.pool, recipeUserId);
    if (row?.recipe_id === 'passwordless') throw coreError('RID_PASSWORDLESS_REQUIRED', 'the user is a passwordless user');
    if (row?.recipe_id !== 'emailpassword') return { status: 'UNKNOWN_USER_ID_ERROR' };
    const email = changes.email === undefined ? undefined : nextEmail(row.email, changes.email);
    assertMaxLength('email', email);
    const passwordHash = changes.password === undefined ? undefined : await this.deps.hasher.hash(changes.password);
    const result = await updateEmailPasswordUser(this.deps.pool, row.user_id, { email, passwordHash });
    // A login method of a primary user is answered as the reference (12.1.1) does when another email-password login
    // method holds the email: the change is not allowed (AL-10.3).
    if (result === 'EMAIL_TAKEN' && !row.in_primary_user) return { status: 'EMAIL_ALREADY_EXISTS_ERROR' };
    if (result === 'EMAIL_TAKEN' || result === 'EMAIL_HELD_BY_ANOTHER_PRIMARY_USER') {
      return { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR', reason: 'New email is associated with another primary user ID' };
    }
    return { status: result === 'OK' ? 'OK' : 'UNKNOWN_USER_ID_ERROR' };
  }

  /** Waits for rehashes still running, so none is cut off by the pool closing. */
  async stop(): Promise<void> {
    await Promise.all(this.pendingRehashes);
  }

  // Optional upgrade of imported hashes (`password_rehash_on_signin`). It starts after the reply is on its way
  // (setImmediate runs after the promise chain that sends it), so sign-in latency is unchanged; a failure
  // only leaves the old hash in place, which still verifies.
  private scheduleRehash(userId: string, storedHash: string, password: string): void {
    if (!this.deps.config.password_rehash_on_signin || this.rehashing.has(userId)) return;
    if (!this.deps.hasher.needsRehash(storedHash)) return;
    // Rehashing into bcrypt a password longer than it reads would make an imported argon2/scrypt hash accept more
    // passwords than before, so such hashes are left as they are.
    if (this.deps.hasher.writerIgnoresPartOf(password)) return;
    this.rehashing.add(userId);
    const task = new Promise<void>((resolve) => setImmediate(resolve))
      .then(async () => {
        const newHash = await this.deps.hasher.hash(password);
        if (await replaceEmailPasswordHash(this.deps.pool, userId, storedHash, newHash)) {
          this.deps.log.info({ userId }, 'password hash upgraded to the configured algorithm');
        }
      })
      .catch((error: unknown) => this.deps.log.error({ err: error, userId }, 'password rehash after sign-in failed'))
      .finally(() => {
        this.rehashing.delete(userId);
        this.pendingRehashes.delete(task);
      });
    this.pendingRehashes.add(task);
  }
}
