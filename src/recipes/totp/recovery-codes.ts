import crypto from 'node:crypto';
import bcrypt from 'bcrypt';
import type { ServiceDependencies } from '../../services.js';
import { withTransaction } from '../../db/transaction.js';
import { lockTotpUser, insertUsedCode } from './repository.js';
import { checkAttemptLimit, type AttemptLimits, type Counts } from './verify.js';
import {
  canonicalRecoveryCode,
  digestBytes,
  generateRecoveryCode,
  hashRecoveryCode,
  saltedDigest,
  type StoredRecoveryCode,
} from './recovery-code-format.js';
import {
  deleteRecoveryCodes,
  findRecoveryCodes,
  insertRecoveryCodes,
  markRecoveryCodeUsed,
  type RecoveryCodeRow,
} from './recovery-codes-repository.js';

type Invalid = { status: 'INVALID_RECOVERY_CODE_ERROR' } & Partial<Counts>;
type Limit = { status: 'LIMIT_REACHED_ERROR'; retryAfterMs: number } & Partial<Counts>;

/**
 * Recovery codes (contract M-7 [PROPOSAL]): digests only, each spent once. Verification shares the TOTP ledger and
 * wrong-code limit of the tenant, so guesses cannot alternate between the two; the ledger row of a recovery-code
 * attempt holds no code (an empty one, which no TOTP code equals).
 */
export class RecoveryCodeService {
  private readonly limits: AttemptLimits;
  constructor(private readonly deps: Pick<ServiceDependencies, 'pool' | 'clock' | 'config'>) {
    this.limits = { maxAttempts: deps.config.totp_max_attempts, cooldownMs: deps.config.totp_rate_limit_cooldown_sec * 1000 };
  }

  async importCodes(userId: string, codes: StoredRecoveryCode[], replaceExisting: boolean) {
    return withTransaction(this.deps.pool, async (client) => {
      await lockTotpUser(client, userId);
      if (replaceExisting) await deleteRecoveryCodes(client, userId);
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
      const rows = await findRecoveryCodes(client, userId);
      return { status: 'OK' as const, importedCount: codes.length, remainingCount: rows.filter((row) => row.used_at === null).length };
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

  async verify(
    tenantId: string,
    userId: string,
    code: string,
  ): Promise<{ status: 'OK'; remainingCount: number } | { status: 'UNKNOWN_USER_ID_ERROR' } | Invalid | Limit> {
    return withTransaction(this.deps.pool, async (client) => {
      await lockTotpUser(client, userId);
      const rows = await findRecoveryCodes(client, userId);
      if (rows.length === 0) return { status: 'UNKNOWN_USER_ID_ERROR' as const };
      const now = this.deps.clock();
      const gate = await checkAttemptLimit(client, tenantId, userId, now, this.limits);
      if (gate.locked) return gate.outcome as Limit;
      const unused = rows.filter((row) => row.used_at === null);
      let spent = false;
      for (const row of unused) {
        if ((await matches(row, code)) && (await markRecoveryCodeUsed(client, row.id, now))) {
          spent = true;
          break;
        }
      }
      await insertUsedCode(client, { tenantId, userId, code: '', isValid: spent, expiryTime: now, createdTime: now });
      if (spent) return { status: 'OK' as const, remainingCount: unused.length - 1 };
      return {
        status: 'INVALID_RECOVERY_CODE_ERROR' as const,
        currentNumberOfFailedAttempts: gate.failures + 1,
        maxNumberOfFailedAttempts: this.limits.maxAttempts,
      };
    });
  }
}

// Candidates: the input trimmed, and without whitespace and '-'. Codes the core hashed compare canonically (case
// too); imported digests are tried with each candidate as typed.
async function matches(row: RecoveryCodeRow, input: string): Promise<boolean> {
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
      for (const candidate of candidates) if (await bcrypt.compare(candidate, row.code_hash)) return true;
      return false;
  }
}
