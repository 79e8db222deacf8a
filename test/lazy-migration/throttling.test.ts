import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, expectText, truncateAll, useTestApp, type TestApp, type TestDatabase } from '../helper.js';
import { formatLazyPointer } from '../../src/hashing/lazy-pointer.js';
import { apiKey, runCommand } from '../cli/harness.js';
import { FakeProvider } from './fake-providers.js';
import { sourceEntry } from './sources.js';

// The attempt cap, the provider's requests to wait and the breaker, seen from the sign-in route: a throttled user is
// told to try later (never "wrong password"), no answer from outside holds adoptions for longer than configured, and
// an operator can let calls through again.

const alice = { login: 'alice@example.com', password: 'correct horse battery', id: 'old-alice' };

async function importPending(app: TestApp['app'], email: string) {
  const reply = await call(app, 'POST', '/recipe/user/passwordhash/import', {
    body: { email, passwordHash: formatLazyPointer({ source: 'legacy' }), hashingAlgorithm: 'lazy' },
  });
  expect(reply.statusCode, reply.body).toBe(200);
  return reply.json.user as { id: string };
}

const signIn = (app: TestApp['app'], email: string, password: string) => call(app, 'POST', '/recipe/signin', { body: { email, password } });

async function storedHash(db: TestDatabase, userId: string): Promise<string> {
  return (await db.pool.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE user_id = $1', [userId])).rows[0]
    .password_hash;
}

async function attemptsRow(db: TestDatabase, userId: string) {
  return (await db.pool.query('SELECT attempts FROM lazy_migration_attempts WHERE user_id = $1', [userId])).rows;
}

describe('a pending user after wrong guesses', () => {
  let fake: FakeProvider;
  beforeAll(async () => {
    fake = await FakeProvider.start('webhook', [alice]);
  });
  const t = useTestApp(() => ({ lazy_migration: { sources: { legacy: sourceEntry('webhook', fake.url) } } }));
  afterEach(async () => {
    fake.latencyMs = 0;
    fake.requests.length = 0;
    await truncateAll(t.db);
  });
  afterAll(() => fake.close());

  it('is told to try later once the hour’s ten calls are used, never "wrong password", and the provider is not asked', async () => {
    const user = await importPending(t.app, alice.login);
    for (let i = 0; i < 10; i++)
      expect((await signIn(t.app, alice.login, `guess ${i}`)).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect(fake.calls).toBe(10);
    const right = await signIn(t.app, alice.login, alice.password);
    expect(right.statusCode).toBe(429);
    expect(expectText(right)).toMatch(/^Too many failed sign-in attempts; retry after \d+ seconds$/);
    const retryAfter = Number(right.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(expectText(right)).toBe(`Too many failed sign-in attempts; retry after ${retryAfter} seconds`);
    expect(fake.calls).toBe(10);
    expect(await storedHash(t.db, user.id)).toMatch(/^\$lazy\$/);
    expect(await attemptsRow(t.db, user.id)).toEqual([{ attempts: 10 }]);

    // The window moves on: the real password is adopted, and the count is gone with the pointer.
    t.clock.advance(3_600_000);
    expect((await signIn(t.app, alice.login, alice.password)).json.status).toBe('OK');
    expect(await storedHash(t.db, user.id)).toMatch(/^\$2[aby]\$/);
    expect(await attemptsRow(t.db, user.id)).toEqual([]);
  });

  it('fifty concurrent sign-ins with the right password after nine wrong ones share one call and all succeed', async () => {
    const user = await importPending(t.app, alice.login);
    for (let i = 0; i < 9; i++) await signIn(t.app, alice.login, `guess ${i}`);
    fake.latencyMs = 300;
    const replies = await Promise.all(Array.from({ length: 50 }, () => signIn(t.app, alice.login, alice.password)));
    expect(replies.map((reply) => reply.json?.status ?? reply.statusCode)).toEqual(Array(50).fill('OK'));
    expect(fake.calls).toBe(10);
    expect(await storedHash(t.db, user.id)).toMatch(/^\$2[aby]\$/);
  });

  it('an unavailable provider does not use up the user’s attempts', async () => {
    const user = await importPending(t.app, alice.login);
    fake.mode = 'down';
    for (let i = 0; i < 12; i++) expect((await signIn(t.app, alice.login, alice.password)).statusCode).toBe(503);
    fake.mode = 'normal';
    expect(await attemptsRow(t.db, user.id)).toEqual([{ attempts: 0 }]);
  });
});

describe('the attempt cap across instances', () => {
  it('holds for two core instances on one database: ten calls in all, then "try later" on both', async () => {
    const fake = await FakeProvider.start('webhook', [alice]);
    const config = { lazy_migration: { sources: { legacy: sourceEntry('webhook', fake.url) } } };
    const a = await createTestApp(config);
    const b = await createTestApp(config, a.db);
    try {
      const user = await importPending(a.app, alice.login);
      const guesses = await Promise.all(Array.from({ length: 16 }, (_, i) => signIn(i % 2 ? a.app : b.app, alice.login, `guess ${i}`)));
      const statuses = guesses.map((reply) => reply.json?.status ?? reply.statusCode).sort();
      expect(statuses).toEqual([...Array(6).fill(429), ...Array(10).fill('WRONG_CREDENTIALS_ERROR')]);
      expect(fake.calls).toBe(10);
      for (const core of [a, b]) expect((await signIn(core.app, alice.login, alice.password)).statusCode).toBe(429);
      expect(fake.calls).toBe(10);
      expect(await storedHash(a.db, user.id)).toMatch(/^\$lazy\$/);
    } finally {
      await b.app.close();
      await a.close();
      await fake.close();
    }
  });
});

describe('waits asked for by the old provider', () => {
  let fake: FakeProvider;
  beforeAll(async () => {
    fake = await FakeProvider.start('webhook', [alice]);
  });
  afterAll(() => fake.close());

  it('a Retry-After of days opens the breaker for open_ms at most, and the client is told no more', async () => {
    const t = await createTestApp({
      lazy_migration: { sources: { legacy: sourceEntry('webhook', fake.url, { breaker: { consecutive_failures: 5, open_ms: 1500 } }) } },
    });
    try {
      const user = await importPending(t.app, alice.login);
      fake.mode = 'throttled';
      fake.retryAfter = '999999';
      const first = await signIn(t.app, alice.login, alice.password);
      expect(first.statusCode).toBe(503);
      expect(first.headers['retry-after']).toBe('2');
      const status = await call(t.app, 'GET', '/lazy-migration/status');
      expect(status.json.sources[0].breaker).toBe('open');
      fake.mode = 'normal';
      await new Promise((resolve) => setTimeout(resolve, 1600));
      expect((await signIn(t.app, alice.login, alice.password)).json.status).toBe('OK');
      expect(fake.calls).toBe(2);
      expect(await storedHash(t.db, user.id)).toMatch(/^\$2[aby]\$/);
    } finally {
      fake.retryAfter = undefined;
      fake.mode = 'normal';
      fake.requests.length = 0;
      await t.close();
    }
  });

  it('an operator closes an open breaker with the route, and with the command', async () => {
    const t = await createTestApp({
      api_keys: apiKey,
      lazy_migration: {
        sources: { legacy: sourceEntry('webhook', fake.url, { breaker: { consecutive_failures: 1, open_ms: 3_600_000 } }) },
      },
    });
    const headers = { 'api-key': apiKey };
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const url = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
      await call(t.app, 'POST', '/recipe/user/passwordhash/import', {
        body: { email: alice.login, passwordHash: formatLazyPointer({ source: 'legacy' }), hashingAlgorithm: 'lazy' },
        headers,
      });
      const open = async () => {
        fake.mode = 'down';
        expect((await call(t.app, 'POST', '/recipe/signin', { body: { email: alice.login, password: 'x' }, headers })).statusCode).toBe(
          503,
        );
        fake.mode = 'normal';
        const before = fake.calls;
        const refused = await call(t.app, 'POST', '/recipe/signin', { body: { email: alice.login, password: 'x' }, headers });
        expect(refused.statusCode).toBe(503);
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3500);
        expect(fake.calls).toBe(before);
      };

      await open();
      const withoutKey = await call(t.app, 'POST', '/lazy-migration/breaker/close', { body: { source: 'legacy' } });
      expect(withoutKey.statusCode).toBe(401);
      const unknown = await call(t.app, 'POST', '/lazy-migration/breaker/close', { body: { source: 'nope' }, headers });
      expect(unknown.statusCode).toBe(400);
      expect(expectText(unknown)).toBe("Unknown lazy-migration source 'nope'");
      const closed = await call(t.app, 'POST', '/lazy-migration/breaker/close', { body: { source: 'legacy' }, headers });
      expect(closed.json).toEqual({ status: 'OK', previous: 'open' });
      expect((await call(t.app, 'GET', '/lazy-migration/status', { headers })).json.sources[0].breaker).toBe('closed');
      const wrong = await call(t.app, 'POST', '/recipe/signin', { body: { email: alice.login, password: 'x' }, headers });
      expect(wrong.json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });

      await open();
      const command = await runCommand(['lazy', 'close-breaker', '--source', 'legacy', '--core-url', url]);
      expect(command).toEqual({ code: 0, stdout: 'legacy: breaker closed (it was open)\n', stderr: '' });
      const right = await call(t.app, 'POST', '/recipe/signin', { body: { email: alice.login, password: alice.password }, headers });
      expect(right.json.status).toBe('OK');
    } finally {
      fake.mode = 'normal';
      fake.requests.length = 0;
      await t.close();
    }
  });
});
