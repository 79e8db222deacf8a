import { createHash, randomUUID } from 'node:crypto';
import { coreError, signInLimited } from '../../errors.js';
import { withTransaction } from '../../db/transaction.js';
import { checkEmail as checkEmailRules } from '../../normalise/contact.js';
import { assertMaxLength } from '../../normalise/length-limits.js';
import type { ServiceDependencies } from '../../service-deps.js';
import { CostlyFailureLimit } from '../emailpassword/costly-failure-limit.js';
import { SignInFailureFloor } from '../emailpassword/signin-floor.js';
import * as repo from './repository.js';

// Dashboard users and sessions (contract-multitenancy T-4): app-wide, unlimited in number, passwords hashed with
// password_hashing_alg off the event loop, sessions kept as SHA-256 digests and valid for dashboard_session_validity_ms.

export interface DashboardUser {
  email: string;
  userId: string;
  timeJoined: number;
}

export type CreateUserResult =
  | { status: 'OK'; user: DashboardUser }
  | { status: 'INVALID_EMAIL_ERROR' }
  | { status: 'PASSWORD_WEAK_ERROR'; message: string }
  | { status: 'EMAIL_ALREADY_EXISTS_ERROR' };

export type UpdateUserResult =
  | { status: 'OK'; user: DashboardUser }
  | { status: 'INVALID_EMAIL_ERROR' }
  | { status: 'PASSWORD_WEAK_ERROR'; message: string }
  | { status: 'EMAIL_ALREADY_EXISTS_ERROR' }
  | { status: 'UNKNOWN_USER_ERROR' };

export type SignInResult = { status: 'OK'; sessionId: string } | { status: 'INVALID_CREDENTIALS_ERROR' };

export interface DashboardSession {
  userId: string;
  sessionId: string;
  timeCreated: number;
  expiry: number;
}

/** The user a PUT or DELETE names: `userId` wins over `email`. */
export type UserSelector = { userId: string } | { email: string };

/** Trimmed and lower-cased, as the reference stores a dashboard email. */
export const normaliseDashboardEmail = (email: string) => email.trim().toLowerCase();

/** The reference's password rules for dashboard users, in its order; undefined when the password is acceptable. */
export function passwordWeakness(password: string): string | undefined {
  if (password.length < 8) return 'Password must contain at least 8 characters, including a number';
  if (password.length >= 100) return "Password's length must be lesser than 100 characters";
  if (!/[A-Za-z]/.test(password)) return 'Password must contain at least one alphabet';
  if (!/[0-9]/.test(password)) return 'Password must contain at least one number';
  return undefined;
}

class EmailTaken extends Error {}

const digestOf = (sessionId: string) => createHash('sha256').update(sessionId, 'utf8').digest();

const toWire = (row: repo.DashboardUserRow): DashboardUser => ({ email: row.email, userId: row.user_id, timeJoined: row.time_joined });

export class DashboardService {
  private readonly failureFloor: SignInFailureFloor;
  // The windows of the user sign-ins (signin_failure_windows), under keys of their own: a dashboard account's and a
  // client's dashboard failures never count against a user's sign-ins, nor theirs against the dashboard's.
  private readonly failures: CostlyFailureLimit;

  constructor(private readonly deps: ServiceDependencies) {
    this.failureFloor = new SignInFailureFloor(deps.config.signin_failure_min_duration_ms);
    this.failures = new CostlyFailureLimit(
      deps.pool,
      deps.config.costly_signin_failures_per_account,
      deps.config.costly_signin_failures_per_client,
      deps.clock,
    );
  }

  /**
   * The email check of a create or update, run in the reference's order (before the password is read): `email`
   * already normalised; INVALID_EMAIL_ERROR when it is not an address, a 400 when it is longer than 256.
   */
  checkEmail(email: string): { status: 'INVALID_EMAIL_ERROR' } | undefined {
    assertMaxLength('email', email);
    return checkEmailRules(email).ok ? undefined : { status: 'INVALID_EMAIL_ERROR' };
  }

  async createUser(email: string, password: string): Promise<CreateUserResult> {
    const weak = passwordWeakness(password);
    if (weak !== undefined) return { status: 'PASSWORD_WEAK_ERROR', message: weak };
    const row: repo.DashboardUserRow = {
      user_id: randomUUID(),
      email,
      password_hash: await this.deps.hasher.hash(password, { wholePassword: true }),
      time_joined: this.deps.clock(),
    };
    if (!(await repo.insertUser(this.deps.pool, row))) return { status: 'EMAIL_ALREADY_EXISTS_ERROR' };
    return { status: 'OK', user: toWire(row) };
  }

  /** The new values are checked first; then a missing selector is a 400 (reference order). Ends the user's sessions. */
  async updateUser(selector: UserSelector | undefined, changes: { newEmail?: string; newPassword?: string }): Promise<UpdateUserResult> {
    if (changes.newEmail !== undefined) {
      const problem = this.checkEmail(changes.newEmail);
      if (problem) return problem;
    }
    if (changes.newPassword !== undefined) {
      const weak = passwordWeakness(changes.newPassword);
      if (weak !== undefined) return { status: 'PASSWORD_WEAK_ERROR', message: weak };
    }
    if (selector === undefined) throw coreError('DASHBOARD_USER_SELECTOR');
    const passwordHash =
      changes.newPassword === undefined ? undefined : await this.deps.hasher.hash(changes.newPassword, { wholePassword: true });
    try {
      return await withTransaction(this.deps.pool, async (client) => {
        const found =
          'userId' in selector ? await repo.findUserById(client, selector.userId) : await repo.findUserByEmail(client, selector.email);
        if (!found) return { status: 'UNKNOWN_USER_ERROR' as const };
        const outcome = await repo.updateUser(client, found.user_id, { email: changes.newEmail, passwordHash });
        // The failed statement ended the transaction: it is rolled back, not committed.
        if (outcome === 'EMAIL_TAKEN') throw new EmailTaken();
        return { status: 'OK' as const, user: toWire({ ...found, email: changes.newEmail ?? found.email }) };
      });
    } catch (error) {
      if (error instanceof EmailTaken) return { status: 'EMAIL_ALREADY_EXISTS_ERROR' };
      throw error;
    }
  }

  async deleteUser(selector: UserSelector): Promise<boolean> {
    return 'userId' in selector
      ? repo.deleteUserById(this.deps.pool, selector.userId)
      : repo.deleteUserByEmail(this.deps.pool, selector.email);
  }

  async listUsers(): Promise<DashboardUser[]> {
    return (await repo.listUsers(this.deps.pool)).map(toWire);
  }

  /**
   * A wrong password, or an email with no dashboard user, is held to the sign-in floor and counted in the failure
   * windows per email and per client; past `costly_signin_failures_per_account` (resp. `_per_client`) failures a
   * minute the next attempt is answered 429 without verifying.
   */
  async signIn(email: string, password: string, clientIp?: string): Promise<SignInResult> {
    const startedAt = performance.now();
    const account = `dashboard:${email}`;
    const client = clientIp === undefined ? undefined : `dashboard:${clientIp}`;
    const waitMs = await this.failures.waitMs(account, client);
    if (waitMs > 0) {
      this.deps.log.info('dashboard sign-in refused: too many failed attempts');
      throw signInLimited(waitMs);
    }
    const sessionId = await this.verifyCredentials(email, password);
    this.failureFloor.record(performance.now() - startedAt);
    if (sessionId === undefined) {
      await this.failures.recordFailure(account, client);
      await this.failureFloor.holdUntilFloor(startedAt);
      return { status: 'INVALID_CREDENTIALS_ERROR' };
    }
    await this.failures.recordSuccess(account);
    return { status: 'OK', sessionId };
  }

  private async verifyCredentials(email: string, password: string): Promise<string | undefined> {
    const user = await repo.findUserByEmail(this.deps.pool, email);
    if (!user) {
      await this.deps.hasher.verifyDecoy(password, `dashboard:unknown:${email}`);
      return undefined;
    }
    const outcome = await this.deps.hasher.verify(password, user.password_hash, `dashboard:${user.user_id}`);
    if (outcome !== 'MATCH') {
      if (outcome !== 'NO_MATCH') this.deps.log.error({ dashboardUserId: user.user_id, outcome }, 'dashboard password hash not verifiable');
      return undefined;
    }
    const sessionId = randomUUID();
    const now = this.deps.clock();
    await repo.insertSession(this.deps.pool, {
      session_id_hash: digestOf(sessionId),
      user_id: user.user_id,
      time_created: now,
      expiry: now + this.deps.config.dashboard_session_validity_ms,
    });
    return sessionId;
  }

  /** The email of a valid session's user; undefined for an unknown, revoked or expired session. */
  async verifySession(sessionId: string): Promise<string | undefined> {
    return repo.findSessionEmail(this.deps.pool, digestOf(sessionId), this.deps.clock());
  }

  async revokeSession(sessionId: string): Promise<void> {
    await repo.deleteSession(this.deps.pool, digestOf(sessionId));
  }

  /** A user's valid sessions; `sessionId` is the hex SHA-256 digest of the id, never the id. */
  async listSessions(userId: string): Promise<DashboardSession[]> {
    return (await repo.listSessions(this.deps.pool, userId, this.deps.clock())).map((row) => ({
      userId: row.user_id,
      sessionId: row.session_id_hash.toString('hex'),
      timeCreated: row.time_created,
      expiry: row.expiry,
    }));
  }

  /** For the periodic session sweep: deletes expired dashboard sessions in batches; the count deleted. */
  async deleteExpiredSessions(batchSize = 1000, batches = 100): Promise<number> {
    let deleted = 0;
    for (let batch = 0; batch < batches; batch++) {
      const count = await repo.deleteExpiredSessions(this.deps.pool, this.deps.clock(), batchSize);
      deleted += count;
      if (count < batchSize) break;
    }
    return deleted;
  }
}
