import { relyingPartiesOf } from '../../recipes/webauthn/relying-parties.js';
import { errorMessage } from '../../errors.js';
import { withTransaction } from '../../db/transaction.js';
import { isTransient, uniqueViolationOf } from '../../db/pg-errors.js';
import type { ServiceDependencies } from '../../service-deps.js';
import { throwIfInvalid, validateBatch } from '../enqueue.js';
import type { JsonObject } from '../fields.js';
import { hashPlainTextPasswords } from '../hash-plain-passwords.js';
import { explainImportError } from '../import-users.js';
import type { ImportUser } from '../types.js';
import { completeUser, type CompletionAnswer } from './complete-user.js';

// A value taken by a concurrent writer between our check and our insert: the user's transaction runs again and its
// check now names the holder.
const maxAttempts = 3;

/** Completes users an earlier bulk import created with what a later export carries (docs/bulk-import.md). */
export class UserCompletionService {
  constructor(private readonly deps: ServiceDependencies) {}

  // Every user is validated by the bulk-import rules first (all errors of all users in one 400, nothing written),
  // then each is completed in its own transaction: one user's conflict leaves the others' completions in place.
  async completeUsers(input: JsonObject[]): Promise<{ status: 'OK'; users: CompletionAnswer[] }> {
    const { config, hasher } = this.deps;
    const batch = await validateBatch(this.deps.pool, input, hasher, this.deps.clock(), {
      secondFactors: { minSecretBits: config.totp_min_imported_secret_bits, requireTotpFactor: config.bulk_import_totp_requires_factor },
      declaredRoles: [],
      lazySources: config.lazy_migration.sources,
      relyingParties: relyingPartiesOf(config),
    });
    const errors = [...batch.errors];
    input.forEach((user, index) => {
      if (Object.hasOwn(user, 'externalUserId')) return;
      const entry = errors.find((error) => error.index === index);
      const message = errorMessage('BULK_FIELD_REQUIRED', 'externalUserId', '.');
      if (entry) entry.errors.unshift(message);
      else errors.push({ index, errors: [message] });
    });
    errors.sort((a, b) => a.index - b.index);
    throwIfInvalid(errors);
    await hashPlainTextPasswords(batch.users, hasher, config.password_hashing_alg);
    const answers: CompletionAnswer[] = [];
    for (const user of batch.users) answers.push(await this.completeOne(user));
    return { status: 'OK', users: answers };
  }

  private async completeOne(user: ImportUser): Promise<CompletionAnswer> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await withTransaction(this.deps.pool, async (tx) => {
          const answer = await completeUser(tx, user, this.deps.totpSecrets);
          // Nothing of a refused completion stays: roll back what was written before the conflict was found.
          if (answer.status === 'CONFLICT') throw new Refused(answer);
          return answer;
        });
      } catch (error) {
        if (error instanceof Refused) return error.answer;
        const raced = uniqueViolationOf(error) !== undefined || isTransient(error);
        if (raced && attempt < maxAttempts) continue;
        const reason = explainImportError(error, user);
        if (reason === undefined) throw error;
        return { status: 'CONFLICT', reason };
      }
    }
  }
}

class Refused extends Error {
  constructor(readonly answer: CompletionAnswer) {
    super('completion refused');
  }
}
