import crypto from 'node:crypto';
import type { ServiceDependencies } from '../../service-deps.js';
import { withTransaction } from '../../db/transaction.js';
import { coreError, recoveryCodeLimited } from '../../errors.js';
import type { PasswordHasher } from '../../hashing/registry.js';
import { CostlyFailureLimit } from '../emailpassword/costly-failure-limit.js';
import { lockTotpUser, insertUsedCode, markAttemptValid } from './repository.js';
import { attemptLimitsIn, checkAttemptLimit, type Counts } from './verify.js';
import {
  canonicalRecoveryCode,
  countBcryptDigests,
  digestBytes,
  generateRecoveryCode,
  hashRecoveryCode,
  MAX_BCRYPT_DIGESTS,
  MAX_RECOVERY_CODES,
  saltedDigest,
  type StoredRecoveryCode,
} from './recovery-code-format.js';
import {
  countUnusedRecoveryCodes,
  deleteRecoveryCodes,
  findRecoveryCodes,
  insertRecoveryCodes,
  markRecoveryCodeUsed,
  type RecoveryCodeRow,
} from './recovery-codes-repository.js';

type Invalid = { status: 'INVALID_RECOVERY_CODE_ERROR' } & Partial<Counts>;

/**
 * Recovery codes (contract M-7 [PROPOSAL]): digests only, each spent once. Verification shares the TOTP ledger and
 * wrong-code limit of the tenant, so guesses cannot alternate between the two; the ledger row of a recovery-code
 * attempt holds no code (an empty one, which no TOTP code equals).
 *
 * A check holds no database connection or lock while digests are compared: the attempt is first recorded as a
 * failure in a short transaction (so parallel guesses count before any is checked, and the limit holds across
 * cores), the digests are compared outside any transaction through the hashing scheduler (one account's checks run
 * one at a time, in the costly share), and a match is spent in a second short transaction that re-checks the code
 * is unspent.
 */
// The windows of the costly sign-in limit, kept apart from the sign-ins' own: one account key never limited, and
// the client's address under its own key.
const RECOVERY_CODES = 'recovery codes';
const clientKey = (clientIp: string | undefined) => (clientIp === undefined ? undefined : `recovery codes from ${clientIp}`);

export class RecoveryCodeService {
  // Per client address, for the deployment: a client guessing at many accounts, each within its own limit.
  private readonly clients: CostlyFailureLimit;
  constructor(private readonly deps: Pick<ServiceDependencies, 'pool' | 'clock' | 'config' | 'hasher' | 'tenantSettings'>) {
    this.clients = new CostlyFailureLimit(deps.pool, Number.MAX_SAFE_INTEGER, deps.config.recovery_code_failures_per_client, deps.clock);
  }

  async importCodes(userId: string, codes: StoredRecoveryCode[], replaceExisting: boolean) {
    return withTransaction(this.deps.pool, async (client) => {
      await lockTotpUser(client, userId);
      if (replaceExisting) await deleteRecoveryCodes(client, userId);
      const existing = replaceExisting ? [] : await findRecoveryCodes(client, userId);
      const held = [...existing.map((row) => ({ hashingAlgorithm: row.hashing_algorithm })), ...codes];
      if (held.length > MAX_RECOVERY_CODES || countBcryptDigests(held) > MAX_BCRYPT_DIGESTS) {
        throw coreError('RECOVERY_CODES_USER_FULL', MAX_RECOVERY_CODES, MAX_BCRYPT_DIGESTS);
      }
      const now = this.deps.clock();
      await insertRecoveryCodes(
        client,
        codes.map((code) => ({
          userId,
          hashingAlgorithm: code.hashingAlgorithm,
          hash: code.hash,
          salt: code.salt ?? null,
          usedAt: code.usedAt ?? null,
          createdAt: now,
        })),
      );
      return { status: 'OK' as const, importedCount: codes.length, remainingCount: await countUnusedRecoveryCodes(client, userId) };
    });
  }

  async generate(userId: string, count: number): Promise<{ status: 'OK'; codes: string[] }> {
    const codes = Array.from({ length: count }, generateRecoveryCode);
    await this.importCodes(userId, codes.map(hashRecoveryCode), true);
    return { status: 'OK', codes };
  }

  async status(userId: string): Promise<{ status: 'OK'; remainingCount: number; totalCount: number }> {
    const rows = await findRecoveryCodes(this.deps.pool, userId);
    return { status: 'OK', remainingCount: rows.filter((row) => row.used_at === null).length, totalCount: rows.length };
  }

  async remove(userId: string): Promise<{ status: 'OK'; didCodesExist: boolean }> {
    return { status: 'OK', didCodesExist: (await deleteRecoveryCodes(this.deps.pool, userId)) > 0 };
  }

  /** Past the account's limit (shared with TOTP) or the client's, answers 429 with Retry-After (recoveryCodeLimited). */
  async verify(
    tenantId: string,
    userId: string,
    code: string,
    { clientIp, withCounts }: { clientIp?: string; withCounts: boolean },
  ): Promise<{ status: 'OK'; remainingCount: number } | { status: 'UNKNOWN_USER_ID_ERROR' } | Invalid> {
    const rows = await findRecoveryCodes(this.deps.pool, userId);
    if (rows.length === 0) return { status: 'UNKNOWN_USER_ID_ERROR' };
    const clientWaitMs = await this.clients.waitMs(RECOVERY_CODES, clientKey(clientIp));
    if (clientWaitMs > 0) throw recoveryCodeLimited({ status: 'LIMIT_REACHED_ERROR', retryAfterMs: clientWaitMs });
    const now = this.deps.clock();
    const limits = await attemptLimitsIn(this.deps.tenantSettings, tenantId);
    const attempt = await withTransaction(this.deps.pool, async (client) => {
      await lockTotpUser(client, userId);
      const gate = await checkAttemptLimit(client, tenantId, userId, now, limits);
      if (gate.locked) return gate;
      const id = await insertUsedCode(client, { tenantId, userId, code: '', isValid: false, expiryTime: now, createdTime: now });
      return { ...gate, id };
    });
    if (attempt.locked) {
      const outcome = attempt.outcome as { status: 'LIMIT_REACHED_ERROR'; retryAfterMs: number } & Counts;
      throw recoveryCodeLimited(withCounts ? outcome : { status: outcome.status, retryAfterMs: outcome.retryAfterMs });
    }
    const unused = rows.filter((row) => row.used_at === null);
    for (const row of unused) {
      if (!(await matches(this.deps.hasher, row, code, userId))) continue;
      const remainingCount = await withTransaction(this.deps.pool, async (client) => {
        if (!(await markRecoveryCodeUsed(client, row.id, now))) return undefined;
        await markAttemptValid(client, attempt.id);
        return countUnusedRecoveryCodes(client, userId);
      });
      if (remainingCount !== undefined) return { status: 'OK', remainingCount };
    }
    if (unused.some((row) => row.hashing_algorithm === 'bcrypt')) await this.clients.recordFailure(RECOVERY_CODES, clientKey(clientIp));
    if (!withCounts) return { status: 'INVALID_RECOVERY_CODE_ERROR' };
    return {
      status: 'INVALID_RECOVERY_CODE_ERROR',
      currentNumberOfFailedAttempts: attempt.failures + 1,
      maxNumberOfFailedAttempts: limits.maxAttempts,
    };
  }
}

// Candidates: the input trimmed, and without whitespace and '-'. Codes the core hashed compare canonically (case
// too); imported digests are tried with each candidate as typed.
async function matches(hasher: PasswordHasher, row: RecoveryCodeRow, input: string, userId: string): Promise<boolean> {
  const candidates = [...new Set([input.trim(), input.replace(/[\s-]+/g, '')])].filter((candidate) => candidate !== '');
  switch (row.hashing_algorithm) {
    case 'salted-sha256': {
      const expected = Buffer.from(row.code_hash, 'hex');
      const actual = Buffer.from(saltedDigest(canonicalRecoveryCode(input), Buffer.from(row.salt ?? '', 'hex')), 'hex');
      return expected.length === actual.length && crypto.timingSafeEqual(expected, actual);
    }
    case 'sha256':
    case 'sha512': {
      const expected = digestBytes(row.code_hash, row.hashing_algorithm);
      if (expected === undefined) return false;
      return candidates.some((candidate) => {
        const actual = crypto.createHash(row.hashing_algorithm).update(candidate, 'utf8').digest();
        return crypto.timingSafeEqual(expected, actual);
      });
    }
    case 'bcrypt':
      // Through the scheduler, in the user's lane and the costly share: a wrong guess runs one check per digest and
      // spelling, and those must queue behind this account only and never take the slots ordinary sign-ins use.
      for (const candidate of candidates) {
        if ((await hasher.verify(candidate, row.code_hash, `recovery:${userId}`, true)) === 'MATCH') return true;
      }
      return false;
  }
}
