import { relyingPartiesOf } from '../recipes/webauthn/relying-parties.js';
import { coreError, jsonCoreError } from '../errors.js';
import { withTransaction } from '../db/transaction.js';
import { findUserById, type StoredUser } from '../users/repository.js';
import {
  countQueueRows,
  countQueueRowsByStatus,
  deleteQueueRows,
  listQueueRows,
  useKeyDrivenPlans,
  type QueueStatus,
} from './repository.js';
import type { PasswordHasher } from '../hashing/registry.js';
import { dryRun, enqueueUsers, throwIfInvalid, toEnqueuedUser, validateBatch, type EnqueuedUser } from './enqueue.js';
import type { JsonObject } from './fields.js';
import { explainImportError, importUsers } from './import-users.js';
import type { ImportOutcome } from './types.js';
import { hashPlainTextPasswords } from './hash-plain-passwords.js';
import { importNow } from './import-now.js';
import { ImportSlots } from './import-slots.js';
import { toQueueEntry } from './queue-listing.js';
import { decodePaginationToken, encodePaginationToken } from '../users/pagination-token.js';
import { importParallelism, type BulkImportWorker } from './worker.js';
import type { StatisticsRefresher } from './statistics-refresh.js';
import type { CountResult, ListUsersResult, RemoveUsersResult } from './schemas.js';
import type { ServiceDependencies } from '../service-deps.js';
import { parseRoleDefinitions, type RoleDefinition } from './role-definitions.js';
import type { SecondFactorSettings } from './validate/context.js';
import { upsertRoles } from '../recipes/userroles/repository.js';
import type { Queryable } from '../db/pool.js';

async function declareRoles(db: Queryable, roles: readonly RoleDefinition[]): Promise<void> {
  await upsertRoles(
    db,
    roles.map((definition) => definition.role),
    roles.map((definition) => definition.permissions),
  );
}

export interface ListQuery {
  status?: QueueStatus;
  limit: number;
  paginationToken?: string;
}

export interface BulkImportParts {
  statistics: StatisticsRefresher;
  // Woken after an enqueue; it imports nothing unless it was started.
  worker: Pick<BulkImportWorker, 'kick'>;
}

interface AddOptions {
  dryRun: boolean;
  importNow?: boolean;
  roleDefinitions?: RoleDefinition[];
}

type AddAnswer = { status: 'OK'; users?: EnqueuedUser[]; imported?: number; failed?: number };

export class BulkImportService {
  private readonly hasher: PasswordHasher;
  private readonly importSlots: ImportSlots;
  private readonly secondFactors: SecondFactorSettings;

  constructor(
    private readonly deps: ServiceDependencies,
    private readonly parts: BulkImportParts,
  ) {
    this.hasher = deps.hasher;
    this.importSlots = new ImportSlots(importParallelism(deps.config));
    this.secondFactors = {
      minSecretBits: deps.config.totp_min_imported_secret_bits,
      requireTotpFactor: deps.config.bulk_import_totp_requires_factor,
    };
  }

  // A request that imports at once is let in only while there is room for it (ImportSlots.admit), before its users are
  // checked.
  async addUsers(users: JsonObject[], options: AddOptions): Promise<AddAnswer> {
    if (!options.importNow || options.dryRun) return this.validateAndAdd(users, options);
    const release = this.importSlots.admit();
    try {
      return await this.validateAndAdd(users, options);
    } finally {
      release();
    }
  }

  // Validates every user (all errors of all users in one 400), then queues them in one statement and wakes the worker.
  // Roles the request declares (M-4.3) are created only once every user is valid, so a 400 leaves none behind.
  private async validateAndAdd(users: JsonObject[], options: AddOptions): Promise<AddAnswer> {
    const now = this.deps.clock();
    const declaredRoles = options.roleDefinitions ?? [];
    const batch = await validateBatch(this.deps.pool, users, this.hasher, now, {
      secondFactors: this.secondFactors,
      declaredRoles,
      lazySources: this.deps.config.lazy_migration.sources,
      relyingParties: relyingPartiesOf(this.deps.config),
    });
    if (options.dryRun) {
      await dryRun(this.deps.pool, users, batch);
      return { status: 'OK' };
    }
    throwIfInvalid(batch.errors);
    // Before either path: a user that fails is stored as a FAILED queue row, which must not hold a password.
    await hashPlainTextPasswords(batch.users, this.hasher, this.deps.config.password_hashing_alg);
    await declareRoles(this.deps.pool, declaredRoles);
    if (options.importNow) {
      const answer = batch.users.map(toEnqueuedUser);
      const deps = {
        pool: this.deps.pool,
        hasher: this.hasher,
        totpSecrets: this.deps.totpSecrets,
        log: this.deps.log,
        slots: this.importSlots,
      };
      const { imported, failed } = await importNow(deps, batch.users, now);
      // The migration command imports this way: its users count in the same metric as the worker's.
      this.deps.metrics?.bulkBatchFinished(imported, failed);
      this.parts.statistics.noteImported(batch.users.length);
      return { status: 'OK', users: answer, imported, failed };
    }
    const enqueued = await enqueueUsers(this.deps.pool, batch.users, now);
    this.parts.worker.kick();
    return { status: 'OK', users: enqueued };
  }

  async listUsers(query: ListQuery): Promise<ListUsersResult> {
    const cursor = query.paginationToken === undefined ? undefined : decodePaginationToken(query.paginationToken);
    if (query.paginationToken !== undefined && !cursor) throw coreError('INVALID_PAGINATION_TOKEN');
    const rows = await listQueueRows(this.deps.pool, query.status, query.limit + 1, cursor);
    const next = rows.length > query.limit ? rows.pop() : undefined;
    return {
      status: 'OK',
      users: rows.map(toQueueEntry),
      ...(next && { nextPaginationToken: encodePaginationToken(next.id, next.created_at) }),
    };
  }

  // [BEYOND] without a status, the per-status counts come along.
  async countUsers(status: QueueStatus | undefined): Promise<CountResult> {
    if (status !== undefined) return { status: 'OK', count: await countQueueRows(this.deps.pool, status) };
    const byStatus = await countQueueRowsByStatus(this.deps.pool);
    return { status: 'OK', count: byStatus.NEW + byStatus.PROCESSING + byStatus.FAILED, byStatus };
  }

  // Partitioned in input order by whether a row was deleted (contract §10.4).
  async removeUsers(ids: string[]): Promise<RemoveUsersResult> {
    const deleted = new Set(ids.length === 0 ? [] : await deleteQueueRows(this.deps.pool, ids));
    return { deletedIds: ids.filter((id) => deleted.has(id)), invalidIds: ids.filter((id) => !deleted.has(id)) };
  }

  // Contract §10.6: one user, validated like a queued one, imported in one transaction (all or nothing).
  // Roles the user JSON declares (M-4.3) are created in the import's transaction: a refused user leaves none behind.
  async importUser(input: JsonObject): Promise<{ status: 'OK'; user: StoredUser }> {
    const declaredRoles = parseRoleDefinitions(input.roleDefinitions);
    const batch = await validateBatch(this.deps.pool, [input], this.hasher, this.deps.clock(), {
      secondFactors: this.secondFactors,
      declaredRoles,
      lazySources: this.deps.config.lazy_migration.sources,
      relyingParties: relyingPartiesOf(this.deps.config),
    });
    if (batch.errors.length > 0) throw jsonCoreError('BULK_USER_REJECTED', { errors: batch.errors[0].errors });
    const user = batch.users[0];
    const row = await withTransaction(this.deps.pool, async (client) => {
      await useKeyDrivenPlans(client);
      await declareRoles(client, declaredRoles);
      let outcome: ImportOutcome;
      try {
        [outcome] = await importUsers(client, [user], this.hasher, this.deps.totpSecrets);
      } catch (error) {
        // A concurrent writer took a value after the conflict check.
        const message = explainImportError(error, user);
        if (message === undefined) throw error;
        outcome = { ok: false, message };
      }
      if (!outcome.ok) throw jsonCoreError('BULK_USER_REJECTED', { errors: [outcome.message] });
      return findUserById(client, user.id);
    });
    return { status: 'OK', user: row! };
  }
}
