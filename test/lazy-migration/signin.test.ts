import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  countRows,
  createTestApp,
  createTestDatabase,
  expectText,
  type TestApp,
  type TestDatabase,
  truncateAll,
  useTestApp,
} from '../helper.js';
import { formatLazyPointer } from '../../src/hashing/lazy-pointer.js';
import { FakeProvider } from './fake-providers.js';
import { sourceEntry } from './sources.js';

const alice = { login: 'alice@example.com', password: 'correct horse battery', id: 'old-alice' };

async function importPending(app: TestApp['app'], email: string, pointer = formatLazyPointer({ source: 'legacy' })) {
  const reply = await call(app, 'POST', '/recipe/user/passwordhash/import', {
    body: { email, passwordHash: pointer, hashingAlgorithm: 'lazy' },
  });
  expect(reply.statusCode, reply.body).toBe(200);
  return reply.json.user as { id: string };
}

function signIn(app: TestApp['app'], email: string, password: string) {
  return call(app, 'POST', '/recipe/signin', { body: { email, password } });
}

async function storedHash(db: TestDatabase, userId: string): Promise<string> {
  return (await db.pool.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE user_id = $1', [userId])).rows[0]
    .password_hash;
}

describe('sign-in of a user imported for lazy migration', () => {
  let fake: FakeProvider;
  const lazy = (extra: Record<string, unknown> = {}) => ({
    lazy_migration: { sources: { legacy: sourceEntry('webhook', fake.url, extra) } },
  });

  beforeAll(async () => {
    fake = await FakeProvider.start('webhook', [alice]);
  });
  const t = useTestApp(() => lazy({ breaker: { consecutive_failures: 3, open_ms: 60_000 } }));
  afterEach(async () => {
    fake.mode = 'normal';
    fake.latencyMs = 0;
    fake.requests.length = 0;
    await truncateAll(t.db);
  });
  afterAll(() => fake.close());

  it('is a user before the first sign-in: sign-up with the email is refused', async () => {
    const user = await importPending(t.app, alice.login);
    const signUp = await call(t.app, 'POST', '/recipe/signup', { body: { email: alice.login, password: 'another' } });
    expect(signUp.json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    expect((await call(t.app, 'GET', '/recipe/user', { query: { email: alice.login } })).json.user.id).toBe(user.id);
  });

  it('adopts the password the old provider confirms, once; later sign-ins never reach it', async () => {
    const user = await importPending(t.app, alice.login);
    const first = await signIn(t.app, alice.login, alice.password);
    expect(first.json).toMatchObject({ status: 'OK', user: { id: user.id, emails: [alice.login] } });
    expect(fake.calls).toBe(1);
    expect(await storedHash(t.db, user.id)).toMatch(/^\$2[aby]\$/);
    const again = await signIn(t.app, alice.login, alice.password);
    expect(again.json.status).toBe('OK');
    expect((await signIn(t.app, alice.login, 'wrong')).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect(fake.calls).toBe(1);
    const events = await t.db.pool.query('SELECT user_id, source, via FROM lazy_migration_events');
    expect(events.rows).toEqual([{ user_id: user.id, source: 'legacy', via: 'signin' }]);
    expect(await countRows(t.db, 'lazy_migration_leases')).toBe(0);
  });

  it('a password longer than bcrypt reads is adopted as argon2id, so its tail still counts', async () => {
    const long = `${'x'.repeat(72)}-the-rest-matters`;
    fake.accounts.set('long@example.com', { login: 'long@example.com', password: long, id: 'old-long' });
    const user = await importPending(t.app, 'long@example.com');
    expect((await signIn(t.app, 'long@example.com', long)).json.status).toBe('OK');
    expect(await storedHash(t.db, user.id)).toMatch(/^\$argon2id\$/);
    expect((await signIn(t.app, 'long@example.com', `${'x'.repeat(72)}-something-else`)).json).toEqual({
      status: 'WRONG_CREDENTIALS_ERROR',
    });
    fake.accounts.delete('long@example.com');
  });

  it('a wrong password or a user the old provider does not know leaves the pointer in place', async () => {
    const user = await importPending(t.app, alice.login);
    const pointer = await storedHash(t.db, user.id);
    expect((await signIn(t.app, alice.login, 'wrong')).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    const ghost = await importPending(t.app, 'ghost@example.com');
    expect((await signIn(t.app, 'ghost@example.com', 'whatever')).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect(await storedHash(t.db, user.id)).toBe(pointer);
    expect(await storedHash(t.db, ghost.id)).toMatch(/^\$lazy\$/);
  });

  it('ten concurrent first sign-ins reach the old provider once and store one hash', async () => {
    const user = await importPending(t.app, alice.login);
    fake.latencyMs = 200;
    const replies = await Promise.all(Array.from({ length: 10 }, () => signIn(t.app, alice.login, alice.password)));
    expect(replies.map((reply) => reply.json.status)).toEqual(Array(10).fill('OK'));
    expect(fake.calls).toBe(1);
    expect(await storedHash(t.db, user.id)).toMatch(/^\$2[aby]\$/);
    expect((await t.db.pool.query('SELECT count(*)::int AS n FROM lazy_migration_events')).rows[0].n).toBe(1);
  });

  it('concurrent sign-ins with different passwords each get their own answer', async () => {
    await importPending(t.app, alice.login);
    fake.latencyMs = 100;
    const [right, wrong] = await Promise.all([signIn(t.app, alice.login, alice.password), signIn(t.app, alice.login, 'not it')]);
    expect(right.json.status).toBe('OK');
    expect(wrong.json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
  });

  it('the password reaches only the configured source and never the logs', async () => {
    await importPending(t.app, alice.login);
    await signIn(t.app, alice.login, alice.password);
    await signIn(t.app, alice.login, 'wrong-guess-xyz');
    const logs = t.logs.join('');
    expect(logs).not.toContain(alice.password);
    expect(logs).not.toContain('wrong-guess-xyz');
    expect(fake.requests.every((request) => request.path === '/verify-password')).toBe(true);
  });

  it('status counts pending and adopted users per source', async () => {
    await importPending(t.app, alice.login);
    await importPending(t.app, 'bob@example.com');
    await signIn(t.app, alice.login, alice.password);
    const status = await call(t.app, 'GET', '/lazy-migration/status');
    expect(status.json).toMatchObject({
      status: 'OK',
      enabled: true,
      sources: [
        {
          name: 'legacy',
          configured: true,
          kind: 'webhook',
          pending: 1,
          migrated: { signin: 1, replaced: 0 },
          breaker: 'closed',
          migratedPerDay: [{ day: new Date().toISOString().slice(0, 10), signin: 1, replaced: 0 }],
        },
      ],
    });
  });
});

describe.each(['firebase', 'auth0', 'cognito', 'okta', 'supabase'] as const)('first sign-in through the %s source', (kind) => {
  it('adopts a right password once and refuses a wrong one, through the sign-in route', async () => {
    const fake = await FakeProvider.start(kind, [alice]);
    const t = await createTestApp({ lazy_migration: { sources: { legacy: sourceEntry(kind, fake.url) } } });
    await importPending(t.app, alice.login, formatLazyPointer({ source: 'legacy', legacyUserId: alice.id }));
    expect((await signIn(t.app, alice.login, 'wrong')).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect((await signIn(t.app, alice.login, alice.password)).json.status).toBe('OK');
    expect((await signIn(t.app, alice.login, alice.password)).json.status).toBe('OK');
    expect(fake.calls).toBe(2);
    await t.close();
    await fake.close();
  });

  it('refuses a match for another old user id', async () => {
    const fake = await FakeProvider.start(kind, [alice]);
    const t = await createTestApp({ lazy_migration: { sources: { legacy: sourceEntry(kind, fake.url) } } });
    await importPending(t.app, alice.login, formatLazyPointer({ source: 'legacy', legacyUserId: 'someone-else' }));
    expect((await signIn(t.app, alice.login, alice.password)).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    await t.close();
    await fake.close();
  });
});

describe('lazy-migration metrics', () => {
  it('count answers by source and outcome, adoptions, pending users and the breaker', async () => {
    const fake = await FakeProvider.start('webhook', [alice]);
    const t = await createTestApp({ lazy_migration: { sources: { legacy: sourceEntry('webhook', fake.url) } } });
    await importPending(t.app, alice.login);
    await importPending(t.app, 'bob@example.com');
    await signIn(t.app, alice.login, 'wrong');
    await signIn(t.app, alice.login, alice.password);
    const metrics = (await call(t.app, 'GET', '/metrics')).body;
    expect(metrics).toContain('identity_core_lazy_verify_total{source="legacy",outcome="mismatch"} 1');
    expect(metrics).toContain('identity_core_lazy_verify_total{source="legacy",outcome="match"} 1');
    expect(metrics).toContain('identity_core_lazy_migrated_total{source="legacy"} 1');
    expect(metrics).toContain('identity_core_lazy_pending_users{source="legacy"} 1');
    expect(metrics).toContain('identity_core_lazy_breaker_open{source="legacy"} 0');
    expect(metrics).toMatch(/identity_core_lazy_verify_duration_seconds_count\{source="legacy"\} 2/);
    await t.close();
    await fake.close();
  });
});

describe('the pending list for a reset campaign', () => {
  it('pages through the pending users of a source with their old login and id, never the pointer', async () => {
    const fake = await FakeProvider.start('webhook', [alice]);
    const t = await createTestApp({ lazy_migration: { sources: { legacy: sourceEntry('webhook', fake.url) } } });
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const pointer = formatLazyPointer({ source: 'legacy', legacyLogin: `login${n}`, legacyUserId: `old-${n}` });
      ids.push((await importPending(t.app, `user${n}@example.com`, pointer)).id);
    }
    await importPending(t.app, alice.login);
    await signIn(t.app, alice.login, alice.password);
    const seen: unknown[] = [];
    let token: string | undefined;
    do {
      const page = await call(t.app, 'GET', '/lazy-migration/pending', {
        query: { source: 'legacy', limit: '2', ...(token && { paginationToken: token }) },
      });
      expect(page.statusCode, page.body).toBe(200);
      seen.push(...page.json.users);
      token = page.json.nextPaginationToken;
    } while (token);
    expect(seen).toEqual(
      ids
        .map((userId, i) => ({
          userId,
          externalUserId: null,
          email: `user${i + 1}@example.com`,
          legacyLogin: `login${i + 1}`,
          legacyUserId: `old-${i + 1}`,
          timeJoined: t.clock.nowMs,
        }))
        .sort((a, b) => (a.userId < b.userId ? -1 : 1)),
    );
    const bad = await call(t.app, 'GET', '/lazy-migration/pending', { query: { source: 'legacy', limit: '5000' } });
    expect([bad.statusCode, expectText(bad)]).toEqual([400, 'limit must be an integer from 1 to 1000']);
    await t.close();
    await fake.close();
  });
});

describe('lazy migration when the old provider fails', () => {
  it('a throttling old provider is a 503 with Retry-After, never a wrong password and never a stored hash', async () => {
    const fake = await FakeProvider.start('webhook', [alice]);
    const t = await createTestApp({ lazy_migration: { sources: { legacy: sourceEntry('webhook', fake.url) } } });
    const user = await importPending(t.app, alice.login);
    fake.mode = 'throttled';
    const reply = await signIn(t.app, alice.login, alice.password);
    expect(reply.statusCode).toBe(503);
    expect(expectText(reply)).toBe('Legacy password verification is unavailable; try again later');
    expect(
      (await t.app.inject({ method: 'POST', url: '/recipe/signin', payload: { email: alice.login, password: alice.password } })).headers[
        'retry-after'
      ],
    ).toBeDefined();
    expect(await storedHash(t.db, user.id)).toMatch(/^\$lazy\$/);
    await t.close();
    await fake.close();
  });

  it('times out within the configured timeout, then the breaker answers 503 without calling', async () => {
    const fake = await FakeProvider.start('webhook', [alice]);
    const t = await createTestApp({
      lazy_migration: {
        sources: { legacy: sourceEntry('webhook', fake.url, { timeout_ms: 300, breaker: { consecutive_failures: 2, open_ms: 60_000 } }) },
      },
    });
    await importPending(t.app, alice.login);
    fake.latencyMs = 2000;
    const started = Date.now();
    expect((await signIn(t.app, alice.login, alice.password)).statusCode).toBe(503);
    expect(Date.now() - started).toBeLessThan(1500);
    expect((await signIn(t.app, alice.login, alice.password + '1')).statusCode).toBe(503);
    const calls = fake.calls;
    fake.latencyMs = 0;
    expect((await signIn(t.app, alice.login, alice.password)).statusCode).toBe(503);
    expect(fake.calls).toBe(calls);
    await t.close();
    await fake.close();
  });

  it('after the deadline the source is never called and the user must reset', async () => {
    const fake = await FakeProvider.start('webhook', [alice]);
    const t = await createTestApp({
      lazy_migration: { sources: { legacy: sourceEntry('webhook', fake.url, { deadline: '2030-01-01T00:00:00Z' }) } },
    });
    await importPending(t.app, alice.login);
    t.clock.nowMs = Date.parse('2030-01-01T00:00:01Z');
    expect((await signIn(t.app, alice.login, alice.password)).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect(fake.calls).toBe(0);
    await t.close();
    await fake.close();
  });

  it('two core instances on one database ask the old provider once', async () => {
    const fake = await FakeProvider.start('webhook', [alice]);
    const db = await createTestDatabase();
    const config = { lazy_migration: { sources: { legacy: sourceEntry('webhook', fake.url) } } };
    const one = await createTestApp(config, db);
    const two = await createTestApp(config, db);
    await importPending(one.app, alice.login);
    fake.latencyMs = 300;
    const replies = await Promise.all([
      ...Array.from({ length: 3 }, () => signIn(one.app, alice.login, alice.password)),
      ...Array.from({ length: 3 }, () => signIn(two.app, alice.login, alice.password)),
    ]);
    expect(replies.map((reply) => reply.json.status)).toEqual(Array(6).fill('OK'));
    expect(fake.calls).toBe(1);
    await one.close();
    await two.close();
    await db.drop();
    await fake.close();
  });

  it('a pointer naming a source this core does not configure never matches', async () => {
    const fake = await FakeProvider.start('webhook', [alice]);
    const db = await createTestDatabase();
    const importer = await createTestApp({ lazy_migration: { sources: { legacy: sourceEntry('webhook', fake.url) } } }, db);
    await importPending(importer.app, alice.login);
    const other = await createTestApp({}, db);
    expect((await signIn(other.app, alice.login, alice.password)).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect(fake.calls).toBe(0);
    await importer.close();
    await other.close();
    await db.drop();
    await fake.close();
  });
});

describe('importing pending users and resetting their passwords', () => {
  let fake: FakeProvider;
  beforeAll(async () => {
    fake = await FakeProvider.start('webhook', [alice]);
  });
  const t = useTestApp(() => ({ lazy_migration: { sources: { legacy: sourceEntry('webhook', fake.url) } } }));
  afterEach(async () => {
    fake.requests.length = 0;
    await truncateAll(t.db);
  });
  afterAll(() => fake.close());

  it('bulk import takes pending users too; the first sign-in adopts them with the mapping kept', async () => {
    const pointer = formatLazyPointer({ source: 'legacy', legacyUserId: 'old-alice' });
    const user = {
      externalUserId: 'ext-alice',
      loginMethods: [{ recipeId: 'emailpassword', email: alice.login, passwordHash: pointer, hashingAlgorithm: 'lazy' }],
    };
    const imported = await call(t.app, 'POST', '/bulk-import/import', { body: user });
    expect(imported.json).toMatchObject({ status: 'OK', user: { id: 'ext-alice' } });
    expect((await signIn(t.app, alice.login, alice.password)).json).toMatchObject({ status: 'OK', user: { id: 'ext-alice' } });
    expect(JSON.parse(fake.requests[0].body)).toMatchObject({
      identifier: alice.login,
      externalUserId: 'ext-alice',
      legacyUserId: 'old-alice',
    });
  });

  it('refuses a pointer to a source this core does not know, and a malformed one, naming the reason', async () => {
    const unknown = await call(t.app, 'POST', '/recipe/user/passwordhash/import', {
      body: { email: 'x@example.com', passwordHash: formatLazyPointer({ source: 'nowhere' }), hashingAlgorithm: 'LAZY' },
    });
    expect(unknown.statusCode).toBe(400);
    expect(expectText(unknown)).toBe("Password hash is in invalid Lazy format: unknown source 'nowhere'");
    const malformed = await call(t.app, 'POST', '/recipe/user/passwordhash/import', {
      body: { email: 'x@example.com', passwordHash: '$lazy$https://evil.example/$$', hashingAlgorithm: 'lazy' },
    });
    expect(expectText(malformed)).toBe('Password hash is in invalid Lazy format: source must be 1 to 32 characters of a-z, 0-9, _ and -');
    expect(await countRows(t.db, 'users')).toBe(0);
  });

  it('re-importing a pointer never undoes an adoption; a real hash imported later replaces a pointer', async () => {
    const user = await importPending(t.app, alice.login);
    expect((await signIn(t.app, alice.login, alice.password)).json.status).toBe('OK');
    const adopted = await storedHash(t.db, user.id);
    const again = await call(t.app, 'POST', '/recipe/user/passwordhash/import', {
      body: { email: alice.login, passwordHash: formatLazyPointer({ source: 'legacy' }), hashingAlgorithm: 'lazy' },
    });
    expect(again.json).toMatchObject({ status: 'OK', didUserAlreadyExist: true, user: { id: user.id } });
    expect(await storedHash(t.db, user.id)).toBe(adopted);

    const bob = await importPending(t.app, 'bob@example.com');
    const bcryptOfSecret = '$2b$04$A4KWwBblfno8wZCxa4UvxetayJf7AGTTCnz8MQNxHdcspfJK0O78S';
    await call(t.app, 'POST', '/recipe/user/passwordhash/import', { body: { email: 'bob@example.com', passwordHash: bcryptOfSecret } });
    expect(await storedHash(t.db, bob.id)).toBe(bcryptOfSecret);
    const events = await t.db.pool.query('SELECT user_id, via FROM lazy_migration_events ORDER BY via');
    expect(events.rows).toEqual([
      { user_id: bob.id, via: 'replaced' },
      { user_id: user.id, via: 'signin' },
    ]);
  });

  it('the reset flow works for a pending user: token, consume, new password; the old provider is never asked', async () => {
    const user = await importPending(t.app, alice.login);
    const token = await call(t.app, 'POST', '/recipe/user/password/reset/token', { body: { userId: user.id, email: alice.login } });
    expect(token.json).toEqual({ status: 'OK', token: expect.stringMatching(/^[A-Za-z0-9_-]{64}$/) });
    const consumed = await call(t.app, 'POST', '/recipe/user/password/reset/token/consume', {
      body: { method: 'token', token: token.json.token },
    });
    expect(consumed.json).toEqual({ status: 'OK', userId: user.id, email: alice.login });
    const reused = await call(t.app, 'POST', '/recipe/user/password/reset/token/consume', {
      body: { method: 'token', token: token.json.token },
    });
    expect(reused.json).toEqual({ status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' });
    const put = await call(t.app, 'PUT', '/recipe/user', { body: { recipeUserId: user.id, password: 'a brand new one' } });
    expect(put.json).toEqual({ status: 'OK' });
    expect((await signIn(t.app, alice.login, 'a brand new one')).json.status).toBe('OK');
    expect(fake.calls).toBe(0);
    expect((await t.db.pool.query('SELECT via FROM lazy_migration_events')).rows).toEqual([{ via: 'replaced' }]);
    expect(await countRows(t.db, 'emailpassword_reset_tokens')).toBe(0);
  });

  it('the one-step reset sets the password; expired, unknown and non-email-password cases are refused', async () => {
    const user = await importPending(t.app, alice.login);
    const token = (await call(t.app, 'POST', '/recipe/user/password/reset/token', { body: { userId: user.id } })).json.token as string;
    const reset = await call(t.app, 'POST', '/recipe/user/password/reset', { body: { method: 'token', token, newPassword: 'fresh-pass' } });
    expect(reset.json).toEqual({ status: 'OK', userId: user.id });
    expect((await signIn(t.app, alice.login, 'fresh-pass')).json.status).toBe('OK');

    const late = (await call(t.app, 'POST', '/recipe/user/password/reset/token', { body: { userId: user.id } })).json.token as string;
    t.clock.advance(t.config.password_reset_token_lifetime + 1);
    expect(
      (await call(t.app, 'POST', '/recipe/user/password/reset/token/consume', { body: { method: 'token', token: late } })).json,
    ).toEqual({
      status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR',
    });
    expect((await call(t.app, 'POST', '/recipe/user/password/reset/token', { body: { userId: 'no-such-user' } })).json).toEqual({
      status: 'UNKNOWN_USER_ID_ERROR',
    });
    const badMethod = await call(t.app, 'POST', '/recipe/user/password/reset/token/consume', { body: { method: 'link', token: late } });
    expect(badMethod.statusCode).toBe(400);
    expect(expectText(badMethod)).toBe("Unsupported method for password reset: 'method' must be 'token'");
  });
});

describe('the canary', () => {
  it('asks a source about one password, stores nothing, and is off unless allowed', async () => {
    const fake = await FakeProvider.start('cognito', [{ login: 'alice_1', password: 'pw-alice', id: 'sub-1' }]);
    const entry = { legacy: sourceEntry('cognito', fake.url) };
    const off = await createTestApp({ lazy_migration: { sources: entry } });
    expect(
      (await call(off.app, 'POST', '/lazy-migration/verify', { body: { source: 'legacy', login: 'alice_1', password: 'pw-alice' } }))
        .statusCode,
    ).toBe(404);
    await off.close();
    const on = await createTestApp({ lazy_migration: { allow_canary: true, sources: entry } });
    const right = await call(on.app, 'POST', '/lazy-migration/verify', {
      body: { source: 'legacy', login: 'alice_1', password: 'pw-alice' },
    });
    expect(right.json).toEqual({ status: 'OK', outcome: 'MATCH' });
    const tooSoon = await call(on.app, 'POST', '/lazy-migration/verify', { body: { source: 'legacy', login: 'alice_1', password: 'x' } });
    expect(tooSoon.statusCode).toBe(503);
    expect(await countRows(on.db, 'users')).toBe(0);
    await on.close();
    await fake.close();
  });
});
