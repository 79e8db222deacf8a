import { describe, expect, it } from 'vitest';
import { keepLease } from '../../src/lazy-migration/lease-keeper.js';
import { acquireLease, renewLease } from '../../src/lazy-migration/repository.js';
import { call, useTestApp } from '../helper.js';

// Issue 52, item 5: a lease shorter than an adoption under load let a second core ask the old provider again.
describe('the lazy-migration lease', () => {
  const t = useTestApp({ bulk_import_worker: false });

  it('outlives its time-to-live while its holder works, and frees once the holder stops', async () => {
    const ttlMs = 1500;
    const db = t.db;
    const signUp = await call(t.app, 'POST', '/recipe/signup', { body: { email: 'lease@example.com', password: 'a-password-1' } });
    const userId = signUp.json.user.id as string;
    expect(await acquireLease(db.pool, userId, 'core-a', Date.now(), ttlMs)).toBe(true);
    const stop = keepLease(() => renewLease(db.pool, userId, 'core-a', Date.now(), ttlMs), ttlMs);
    try {
      await new Promise((resolve) => setTimeout(resolve, 2 * ttlMs));
      expect(await acquireLease(db.pool, userId, 'core-b', Date.now(), ttlMs)).toBe(false);
    } finally {
      stop();
    }
    const { rows } = await db.pool.query<{ owner: string }>('SELECT owner FROM lazy_migration_leases');
    expect(rows).toEqual([{ owner: 'core-a' }]);
    // Stopped, the lease runs out as before: another core may take it then.
    expect(await acquireLease(db.pool, userId, 'core-b', Date.now() + ttlMs + 1, ttlMs)).toBe(true);
    expect(await renewLease(db.pool, userId, 'core-a', Date.now(), ttlMs)).toBe(false);
  });
});
