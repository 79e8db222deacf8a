import type pg from 'pg';
import type { Logger } from 'pino';
import { CoreError } from '../errors.js';
import { withTransaction } from '../db/transaction.js';
import { claimQueueRows, finishQueueRows, findExistingRoles, useKeyDrivenPlans } from './repository.js';
import type { TotpSecretBox } from '../keys/secret-box.js';
import type { PasswordHasher } from '../hashing/registry.js';
import { isJsonObject } from './fields.js';
import { explainImportError, importUsers, inInsertOrder } from './import-users.js';
import { validateUser } from './validate/user.js';
import { storedRowSettings } from './validate/context.js';
import { findTenantsNamedIn, rolesNamedIn } from './enqueue.js';
import type { ImportOutcome, ImportUser } from './types.js';
import { describeError, isTransient } from '../db/pg-errors.js';

export interface BatchDependencies {
  pool: pg.Pool;
  hasher: PasswordHasher;
  totpSecrets: TotpSecretBox;
  clock: () => number;
  log: Logger;
  batchSize: number;
  // Told once a batch has committed: how many of its rows were imported and how many failed.
  onFinished?: (imported: number, failed: number) => void;
}

const internalFailure = 'Internal error while importing this user';

// Claims up to batchSize queue rows, imports them, and deletes (imported) or fails them, all in ONE transaction: a
// crash at any point rolls back both the users and the queue changes, so every row is imported exactly once.
// Returns how many rows were claimed (0 = nothing left that this process may take).
export async function processBatch(deps: BatchDependencies): Promise<number> {
  const finished = await withTransaction(deps.pool, async (client) => {
    await useKeyDrivenPlans(client);
    const rows = await claimQueueRows(client, deps.batchSize);
    if (rows.length === 0) return { claimed: 0, imported: 0, failed: 0 };
    const now = deps.clock();
    const raw = rows.map((row) => row.raw_data);
    const named = { roles: new Set(await findExistingRoles(client, rolesNamedIn(raw))), tenants: await findTenantsNamedIn(client, raw) };
    const failed: { id: string; message: string }[] = [];
    const valid: { rowId: string; user: ImportUser }[] = [];
    for (const row of rows) {
      const result = revalidate(row.raw_data, now, named, deps.hasher);
      if (result.ok) valid.push({ rowId: row.id, user: result.user });
      else failed.push({ id: row.id, message: result.message });
    }

    const users = valid.map(({ user }) => user);
    const outcomes = await importBatch(client, users, deps);
    const imported: string[] = [];
    outcomes.forEach((outcome, index) => {
      if (outcome.ok) imported.push(valid[index].rowId);
      else failed.push({ id: valid[index].rowId, message: outcome.message });
    });
    await finishQueueRows(client, imported, failed, now);
    return { claimed: rows.length, imported: imported.length, failed: failed.length };
  });
  if (finished.claimed > 0) deps.onFinished?.(finished.imported, finished.failed);
  return finished.claimed;
}

// Stored rows were valid when queued, but roles or tenants may have been deleted since, or the signer key unset.
function revalidate(
  raw: unknown,
  now: number,
  { roles, tenants }: { roles: ReadonlySet<string>; tenants: ReadonlySet<string> },
  hasher: PasswordHasher,
): { ok: true; user: ImportUser } | { ok: false; message: string } {
  if (!isJsonObject(raw)) return { ok: false, message: internalFailure };
  try {
    const context = {
      now,
      roles,
      tenants,
      hasher,
      externalUserIds: new Set<string>(),
      ids: 'stored' as const,
      secondFactors: storedRowSettings,
    };
    const result = validateUser(raw, context);
    // Java's List.toString, as the reference stores it.
    return result.ok ? result : { ok: false, message: `[${result.errors.join(', ')}]` };
  } catch (error) {
    if (error instanceof CoreError) return { ok: false, message: error.publicMessage };
    throw error;
  }
}

// Up to two set-based attempts (the second one's conflict check sees what made the first fail), then one user at a
// time, so that one user whose data the database refuses fails alone.
export async function importBatch(
  client: pg.PoolClient,
  users: ImportUser[],
  deps: Pick<BatchDependencies, 'hasher' | 'totpSecrets' | 'log'>,
): Promise<ImportOutcome[]> {
  for (let attempt = 1; attempt <= 2; attempt++) {
    await client.query('SAVEPOINT batch');
    try {
      const outcomes = await importUsers(client, users, deps.hasher, deps.totpSecrets);
      await client.query('RELEASE SAVEPOINT batch');
      return outcomes;
    } catch (error) {
      if (isTransient(error)) throw error;
      await client.query('ROLLBACK TO SAVEPOINT batch');
      deps.log.warn({ error: describeError(error), rows: users.length, attempt }, 'bulk import: batch statement failed');
    }
  }
  const outcomes = new Map<ImportUser, ImportOutcome>();
  for (const user of inInsertOrder(users)) {
    await client.query('SAVEPOINT one_user');
    try {
      outcomes.set(user, (await importUsers(client, [user], deps.hasher, deps.totpSecrets))[0]);
      await client.query('RELEASE SAVEPOINT one_user');
    } catch (error) {
      if (isTransient(error)) throw error;
      await client.query('ROLLBACK TO SAVEPOINT one_user');
      const message = explainImportError(error, user);
      if (message === undefined) deps.log.error({ error: describeError(error), userId: user.id }, 'bulk import: user failed');
      outcomes.set(user, { ok: false, message: message ?? internalFailure });
    }
  }
  return users.map((user) => outcomes.get(user)!);
}
