import type pg from 'pg';
import type { Logger } from 'pino';
import { withTransaction } from '../db/transaction.js';
import { isTransient } from '../db/pg-errors.js';
import type { TotpSecretBox } from '../keys/secret-box.js';
import type { PasswordHasher } from '../hashing/registry.js';
import type { ImportSlots } from './import-slots.js';
import { importBatch } from './process-batch.js';
import { insertFailedQueueRows, useKeyDrivenPlans } from './repository.js';
import type { ImportUser } from './types.js';

export interface ImportNowDependencies {
  pool: pg.Pool;
  hasher: PasswordHasher;
  totpSecrets: TotpSecretBox;
  log: Logger;
  // Shared by every request of this core: a request is split over as many transactions as it has slots.
  slots: ImportSlots;
}

const maxAttempts = 3;

// [BEYOND] ?importNow=true: the users of a request are imported before the answer instead of going through the
// queue, which saves writing, locking, reading, validating again and deleting each row. Users the database refuses
// are stored as FAILED queue rows with their reason, as the worker would have left them, so per-user failures are
// read from the queue either way. A request is split over as many transactions as the core's ImportSlots has slots
// (fewer when it is small), each run once a slot is free; one that rolls back for a transient reason (a deadlock with
// another core over the same users) runs again.
// Returns how many users were imported and how many failed (for the metrics the worker's batches also feed).
export async function importNow(
  deps: ImportNowDependencies,
  users: ImportUser[],
  now: number,
): Promise<{ imported: number; failed: number }> {
  const slices = slicesOf(users, deps.slots.size);
  const counts = await Promise.all(slices.map((slice) => deps.slots.run(() => importSlice(deps, slice, now))));
  const failed = counts.reduce((sum, count) => sum + count, 0);
  return { imported: users.length - failed, failed };
}

// A transaction has a fixed cost in PostgreSQL (planning each statement, the commit) whatever its size: below this many
// users a slice would cost more than running it beside another one gains. At 20,000 users in requests of 250 to 8,000,
// leaving the three smallest whole took 35 to 55 ms of PostgreSQL's CPU off the run's 1.4 s (medians of ten runs).
const MIN_SLICE_USERS = 1000;

/** The request's users in consecutive slices, as many as there are slots, each of at least MIN_SLICE_USERS (one if fewer). */
export function slicesOf<T>(users: T[], slots: number): T[][] {
  const count = Math.max(1, Math.min(slots, Math.floor(users.length / MIN_SLICE_USERS)));
  const size = Math.ceil(users.length / count);
  const slices: T[][] = [];
  for (let start = 0; start < users.length; start += size) slices.push(users.slice(start, start + size));
  return slices;
}

async function importSlice(deps: ImportNowDependencies, users: ImportUser[], now: number): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await withTransaction(deps.pool, async (client) => {
        await useKeyDrivenPlans(client);
        const outcomes = await importBatch(client, users, deps);
        const failed = users.filter((_, index) => !outcomes[index].ok);
        if (failed.length === 0) return 0;
        const messages = outcomes.flatMap((outcome) => (outcome.ok ? [] : [outcome.message]));
        await insertFailedQueueRows(client, JSON.stringify(failed, withoutPlainTextPasswords), messages, now);
        return failed.length;
      });
    } catch (error) {
      if (!isTransient(error) || attempt >= maxAttempts) throw error;
    }
  }
}

// A refused user's row keeps what is needed to fix and resend it, never a password in clear text.
function withoutPlainTextPasswords(key: string, value: unknown): unknown {
  return key === 'plainTextPassword' ? undefined : value;
}
