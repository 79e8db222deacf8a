import bcrypt from 'bcrypt';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPool } from '../../../src/db/pool.js';
import {
  call,
  createTestApp,
  createTestDatabase,
  databaseUrl,
  snapshot,
  testPoolMode,
  truncateAll,
  useTestApp,
  type TestApp,
} from '../../helper.js';

// Issue 50 item 1: recovery codes must not become a way to stop the core. Imported digests get the import bounds of
// password hashes, a user holds a bounded number of them, wrong guesses are limited per account (in PostgreSQL, so
// every core sees the count) and per client, and no digest is compared while a connection or lock is held.

const verify = (t: TestApp, userId: string, code: string) =>
  call(t.app, 'POST', '/public/recipe/recoverycodes/verify', { body: { userId, code } });
const importCodes = (t: TestApp, userId: string, codes: unknown[], replaceExisting?: boolean) =>
  call(t.app, 'POST', '/recipe/recoverycodes/import', {
    body: { userId, codes, ...(replaceExisting !== undefined && { replaceExisting }) },
  });
const fakeBcrypt = (cost: number, n = 0) => `$2b$${String(cost).padStart(2, '0')}$${String(n).padStart(53, 'a')}`;

let digests: { hash: string; hashingAlgorithm: 'bcrypt' }[];
beforeAll(async () => {
  // Real digests (cost 4, so the tests stay quick) of codes nobody will guess.
  digests = await Promise.all(
    Array.from({ length: 12 }, async (_, n) => ({ hash: await bcrypt.hash(`never-guessed-${n}`, 4), hashingAlgorithm: 'bcrypt' as const })),
  );
});

describe('importing recovery-code digests', () => {
  const t = useTestApp({}, { truncateEach: true });

  it('refuses a bcrypt digest over the import bound of password hashes, storing nothing', async () => {
    const before = await snapshot(t.db);
    const reply = await importCodes(t, 'u1', [{ hash: fakeBcrypt(16), hashingAlgorithm: 'bcrypt' }]);
    expect({ statusCode: reply.statusCode, body: reply.body }).toEqual({
      statusCode: 400,
      body: 'hash is not an accepted bcrypt digest: cost = 16 is over the limit of 13 (raise imported_hash_max_bcrypt_cost to accept it)\n',
    });
    expect(await snapshot(t.db)).toEqual(before);
    expect((await importCodes(t, 'u1', [{ hash: fakeBcrypt(13), hashingAlgorithm: 'bcrypt' }])).json).toEqual({
      status: 'OK',
      importedCount: 1,
      remainingCount: 1,
    });
  });

  it('bounds the bcrypt digests of one request and of one user', async () => {
    const thirteen = Array.from({ length: 13 }, (_, n) => ({ hash: fakeBcrypt(10, n), hashingAlgorithm: 'bcrypt' }));
    const tooMany = await importCodes(t, 'u1', thirteen);
    expect({ statusCode: tooMany.statusCode, body: tooMany.body }).toEqual({
      statusCode: 400,
      body: 'recoveryCodes can contain at most 12 bcrypt digests\n',
    });

    expect((await importCodes(t, 'u1', thirteen.slice(0, 10))).json).toEqual({ status: 'OK', importedCount: 10, remainingCount: 10 });
    const before = await snapshot(t.db);
    const more = await importCodes(t, 'u1', thirteen.slice(10));
    expect({ statusCode: more.statusCode, body: more.body }).toEqual({
      statusCode: 400,
      body: 'A user can hold at most 32 recovery codes, 12 of them bcrypt digests: pass replaceExisting or remove codes first\n',
    });
    expect(await snapshot(t.db)).toEqual(before);
    // Plain codes fill up to 32 in all; replacing starts over.
    const plain = Array.from({ length: 22 }, (_, n) => `plain-code-${n}`);
    expect((await importCodes(t, 'u1', plain)).json).toEqual({ status: 'OK', importedCount: 22, remainingCount: 32 });
    expect((await importCodes(t, 'u1', ['one-more-code'])).statusCode).toBe(400);
    expect((await importCodes(t, 'u1', thirteen.slice(10), true)).json).toEqual({ status: 'OK', importedCount: 3, remainingCount: 3 });
  });
});

describe('guessing recovery codes', () => {
  const t = useTestApp({}, { truncateEach: true });
  beforeEach(async () => {
    expect((await importCodes(t, 'u1', digests)).statusCode).toBe(200);
  });

  it('checks bcrypt digests through the hashing scheduler, one per digest and spelling', async () => {
    const started = t.app.services.verificationScheduler.startedCount;
    expect((await verify(t, 'u1', 'wrong-guess')).json).toEqual({
      status: 'INVALID_RECOVERY_CODE_ERROR',
      currentNumberOfFailedAttempts: 1,
      maxNumberOfFailedAttempts: 5,
    });
    // "wrong-guess" and "wrongguess" against each of the 12 digests.
    expect(t.app.services.verificationScheduler.startedCount - started).toBe(24);
  });

  it('answers 429 with Retry-After past the account limit, whose count lives in PostgreSQL (a second core sees it)', async () => {
    for (let n = 1; n <= 5; n++) {
      expect((await verify(t, 'u1', `wrong-${n}`)).json).toEqual({
        status: 'INVALID_RECOVERY_CODE_ERROR',
        currentNumberOfFailedAttempts: n,
        maxNumberOfFailedAttempts: 5,
      });
    }
    const second = await createTestApp({}, t.db);
    try {
      second.clock.nowMs = t.clock.nowMs + 1000;
      // The new core builds and checks its decoy hash at start (two operations); then nothing else runs.
      await vi.waitFor(() => expect(second.app.services.verificationScheduler.startedCount).toBe(2));
      await second.app.services.verificationScheduler.idle();
      const started = second.app.services.verificationScheduler.startedCount;
      const reply = await verify(second, 'u1', 'never-guessed-0');
      expect(reply.statusCode).toBe(429);
      expect(reply.headers['retry-after']).toBe('899');
      expect(reply.json).toEqual({
        status: 'LIMIT_REACHED_ERROR',
        retryAfterMs: 899_000,
        currentNumberOfFailedAttempts: 5,
        maxNumberOfFailedAttempts: 5,
      });
      expect(second.app.services.verificationScheduler.startedCount).toBe(started);
    } finally {
      await second.close();
    }
    const ledger = await t.db.pool.query('SELECT count(*)::int AS n FROM totp_used_codes WHERE user_id = $1', ['u1']);
    expect(ledger.rows[0].n).toBe(5);
  });

  it('counts parallel guesses before checking any: twelve at once get five answers and seven 429s, no 503', async () => {
    const replies = await Promise.all(Array.from({ length: 12 }, (_, n) => verify(t, 'u1', `parallel-${n}`)));
    const statuses = replies.map((reply) => (reply.statusCode === 200 ? (reply.json as { status: string }).status : reply.statusCode));
    expect(statuses.filter((status) => status === 'INVALID_RECOVERY_CODE_ERROR')).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(7);
    const ledger = await t.db.pool.query('SELECT count(*)::int AS n FROM totp_used_codes WHERE user_id = $1', ['u1']);
    expect(ledger.rows[0].n).toBe(5);
  });

  it('spends a code once even when two requests bring it together', async () => {
    const [a, b] = await Promise.all([verify(t, 'u1', 'never-guessed-7'), verify(t, 'u1', 'never-guessed-7')]);
    const statuses = [a.json, b.json].map((body) => (body as { status: string }).status).sort();
    expect(statuses).toEqual(['INVALID_RECOVERY_CODE_ERROR', 'OK']);
    expect([a.json, b.json]).toContainEqual({ status: 'OK', remainingCount: 11 });
    const used = await t.db.pool.query('SELECT count(*)::int AS n FROM recovery_codes WHERE used_at IS NOT NULL');
    expect(used.rows[0].n).toBe(1);
  });
});

describe('a client guessing at many accounts', () => {
  const t = useTestApp({ recovery_code_failures_per_client: 2 }, { truncateEach: true });

  it('gets 429 with Retry-After once its failures against bcrypt digests reach the limit, without a check', async () => {
    for (const user of ['a', 'b', 'c']) expect((await importCodes(t, user, digests.slice(0, 2))).statusCode).toBe(200);
    expect((await verify(t, 'a', 'wrong-one')).json).toMatchObject({ status: 'INVALID_RECOVERY_CODE_ERROR' });
    expect((await verify(t, 'b', 'wrong-two')).json).toMatchObject({ status: 'INVALID_RECOVERY_CODE_ERROR' });
    const started = t.app.services.verificationScheduler.startedCount;
    const reply = await verify(t, 'c', 'never-guessed-0');
    expect({ statusCode: reply.statusCode, retryAfter: reply.headers['retry-after'], body: reply.json }).toEqual({
      statusCode: 429,
      retryAfter: '60',
      body: { status: 'LIMIT_REACHED_ERROR', retryAfterMs: 60_000 },
    });
    expect(t.app.services.verificationScheduler.startedCount).toBe(started);
    // A minute later the client may try again.
    t.clock.advance(60_000);
    expect((await verify(t, 'c', 'never-guessed-0')).json).toEqual({ status: 'OK', remainingCount: 1 });
  });
});

describe('a connection pool of two', () => {
  let t: TestApp;
  let setup: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    setup = await createTestDatabase();
    const pool = createPool({ connectionString: databaseUrl, schema: setup.schema, size: 2, poolMode: testPoolMode });
    t = await createTestApp({}, { ...setup, pool, drop: async () => await pool.end() });
    return async () => {
      await t.app.close();
      await setup.drop();
    };
  });

  // Were a digest compared while its request held a connection, both connections would be taken by guesses and the
  // reads would queue behind every check; they finish while the checks still run.
  it('serves other users while guesses against bcrypt digests are checked: no connection waits on a check', async () => {
    const slow = await Promise.all(
      Array.from({ length: 6 }, async (_, n) => ({ hash: await bcrypt.hash(`slow-${n}`, 10), hashingAlgorithm: 'bcrypt' as const })),
    );
    await truncateAll(setup);
    for (const user of ['a', 'b', 'c', 'd']) expect((await importCodes(t, user, slow)).statusCode).toBe(200);
    const finished: string[] = [];
    const track = (what: string, reply: Promise<{ statusCode: number }>) => reply.then((r) => (finished.push(what), r.statusCode));
    const guesses = ['a', 'b', 'c', 'd'].flatMap((user) => [
      track('guess', verify(t, user, 'wrong-1')),
      track('guess', verify(t, user, 'wrong-2')),
    ]);
    const reads = Array.from({ length: 6 }, () =>
      track('read', call(t.app, 'GET', '/recipe/recoverycodes/status', { query: { userId: 'a' } })),
    );
    const statuses = await Promise.all([...guesses, ...reads]);
    expect(statuses).toEqual(statuses.map(() => 200));
    expect(finished.lastIndexOf('read')).toBeLessThan(finished.indexOf('guess'));
  });
});
