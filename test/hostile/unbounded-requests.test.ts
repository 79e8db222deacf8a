import { describe, expect, it } from 'vitest';
import { call, snapshot, useTestApp } from '../helper.js';

// Requests whose answer or whose parsing would grow with what the caller or the data decide.
const t = useTestApp({ bulk_import_worker: false }, { truncateEach: true });

// `levels` objects nested inside each other: {"a":{"a":…{}}}.
const nested = (levels: number): string => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);

describe('listing limits', () => {
  it('answers a search asking for a billion users with at most 1000, and a plain listing refuses more than 500', async () => {
    await t.db.pool.query(
      `INSERT INTO users (user_id, recipe_id, time_joined, email, password_hash)
       SELECT 'u' || n, 'emailpassword', n, 'user' || n || '@big.example', 'x' FROM generate_series(1, 1200) AS n`,
    );
    const searched = await call(t.app, 'GET', '/users', { query: { email: 'big', limit: '1000000000' } });
    expect([searched.statusCode, searched.json.users.length, searched.json.nextPaginationToken]).toEqual([200, 1000, undefined]);
    const plain = await call(t.app, 'GET', '/users', { query: { limit: '1000000000' } });
    expect([plain.statusCode, plain.body]).toEqual([400, 'max limit allowed is 500\n']);
  });
});

describe('input depth', () => {
  it.each([
    ['/recipe/signin', (deep: string) => `{"email":"a@example.com","password":"pw","extra":${deep}}`, 'extra'],
    [
      '/bulk-import/users',
      (deep: string) => `{"users":[{"userMetadata":{},"loginMethods":[]},{"loginMethods":[],"userMetadata":${deep}}]}`,
      'users[1].userMetadata',
    ],
    ['/bulk-import/users', (deep: string) => `{"users":[${deep}]}`, 'users[0].a'],
    ['/recipe/userid/map', (deep: string) => `{"superTokensUserId":"a","externalUserId":"b","x":${deep}}`, 'x'],
  ])('%s: JSON nested 5000 deep is a 400 naming the field, and writes nothing', async (url, body, field) => {
    const before = await snapshot(t.db);
    const reply = await call(t.app, 'POST', url, { body: body(nested(5000)) });
    expect([reply.statusCode, reply.body]).toEqual([400, `Field name '${field}' is nested deeper than 64 levels in JSON input\n`]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('accepts 64 levels and refuses 65, counting the body itself as the first', async () => {
    const signIn = (levels: number) =>
      call(t.app, 'POST', '/recipe/signin', { body: `{"email":"a@example.com","password":"pw","extra":${nested(levels - 1)}}` });
    expect((await signIn(64)).body).toBe('{"status":"WRONG_CREDENTIALS_ERROR"}\n');
    expect((await signIn(65)).body).toBe(`Field name 'extra' is nested deeper than 64 levels in JSON input\n`);
  });

  it('counts arrays as levels too, wherever they sit in a field', async () => {
    // `levels` levels below the body: an array holding an object holding an array..., after a field that is fine.
    const mixed = (levels: number) => '[{"a":'.repeat(levels / 2) + 'null' + '}]'.repeat(levels / 2);
    const signIn = (levels: number) =>
      call(t.app, 'POST', '/recipe/signin', {
        body: `{"email":"a@example.com","password":"pw","wide":{"x":[1,2,{"y":3}]},"extra":[0,${mixed(levels - 2)}]}`,
      });
    expect((await signIn(64)).body).toBe('{"status":"WRONG_CREDENTIALS_ERROR"}\n');
    expect((await signIn(66)).body).toBe(`Field name 'extra' is nested deeper than 64 levels in JSON input\n`);
  });
});

describe('/hello', () => {
  it('probes the database at most 5 times in a burst and 5 times a second after that, however many calls arrive', async () => {
    const health = t.app.services.health;
    const before = health.probeCount;
    const started = performance.now();
    let answered = 0;
    while (performance.now() - started < 1000) {
      const replies = await Promise.all(Array.from({ length: 50 }, () => t.app.inject({ method: 'GET', url: '/hello' })));
      answered += replies.filter((reply) => reply.statusCode === 200 && reply.body === 'Hello\n').length;
    }
    const elapsed = performance.now() - started;
    expect(answered).toBeGreaterThanOrEqual(50);
    expect(health.probeCount - before).toBeLessThanOrEqual(5 + Math.ceil(elapsed / 200));
  });
});

describe('bulk-import queue', () => {
  it.each([
    ['queued, then imported by the worker', {}],
    ['imported at once (importNow)', { importNow: 'true' }],
  ])('%s: keeps no plain-text password in a failed row, and lists failed rows without passwords or hashes', async (_, query) => {
    expect((await call(t.app, 'POST', '/recipe/signup', { body: { email: 'taken@example.com', password: 'first' } })).statusCode).toBe(200);
    const users = [
      { loginMethods: [{ recipeId: 'emailpassword', email: 'taken@example.com', plainTextPassword: 'hunter2-secret' }] },
      { loginMethods: [{ recipeId: 'emailpassword', email: 'taken@example.com', plainTextPassword: 'other-secret' }] },
    ];
    expect((await call(t.app, 'POST', '/bulk-import/users', { body: { users }, query })).statusCode).toBe(200);
    await t.app.services.bulkImportWorker.processUntilEmpty();

    const failed = await call(t.app, 'GET', '/bulk-import/users', { query: { status: 'FAILED' } });
    expect([failed.statusCode, failed.json.users.length]).toEqual([200, 2]);
    for (const row of failed.json.users) {
      expect(row.errorMessage).toBe('E003: A user with email taken@example.com already exists in emailpassword loginMethod.');
      expect(Object.keys(row.loginMethods[0]).sort()).toEqual([
        'email',
        'hashingAlgorithm',
        'isPrimary',
        'isVerified',
        'recipeId',
        'superTokensUserId',
        'tenantIds',
        'timeJoinedInMSSinceEpoch',
      ]);
    }
    expect(failed.body).not.toMatch(/secret|\$2[aby]\$/);
    const { rows } = await t.db.pool.query('SELECT raw_data::text AS stored FROM bulk_import_users');
    expect(rows.map((row) => row.stored).join()).not.toContain('secret');
  });
});
