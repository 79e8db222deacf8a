import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../../src/db/pool.js';
import { countRows, createTestApp, databaseUrl, useTestDatabase, type TestApp } from '../helper.js';

// Issue 27, item 8: a request that waited too long for a database connection answered 500 under load.
describe('a request that waits too long for a database connection', () => {
  const db = useTestDatabase();
  let small: pg.Pool;
  let t: TestApp;
  beforeAll(async () => {
    small = createPool({ connectionString: databaseUrl, schema: db.schema, size: 2, connectionTimeoutMs: 300 });
    t = await createTestApp({ bulk_import_worker: false, log_level: 'WARN' }, { ...db, pool: small });
  });
  afterAll(async () => {
    await t.close();
    await small.end();
  });

  const requests = () => [
    t.app.inject({ method: 'GET', url: '/user/id', query: { userId: 'nobody' } }),
    t.app.inject({ method: 'POST', url: '/recipe/signup', payload: { email: 'a@example.com', password: 'a-password-1' } }),
    t.app.inject({ method: 'GET', url: '/users/count' }),
    t.app.inject({
      method: 'POST',
      url: '/bulk-import/import',
      payload: { loginMethods: [{ recipeId: 'passwordless', email: 'b@example.com' }] },
    }),
  ];

  it('answers 503 with Retry-After like every other overload, writes nothing, and serves again once a connection is free', async () => {
    const held = [await small.connect(), await small.connect()];
    let replies;
    try {
      replies = await Promise.all(requests());
    } finally {
      for (const client of held) client.release();
    }
    for (const reply of replies) {
      expect([reply.statusCode, reply.headers['retry-after'], reply.body]).toEqual([
        503,
        '1',
        'The database is busy, retry after 1 seconds\n',
      ]);
    }
    expect(await countRows(db, 'users')).toBe(0);
    expect(t.logs.join('')).not.toContain('unexpected error');
    expect(t.logs.filter((line) => line.includes('The database is busy'))).toHaveLength(replies.length);

    const again = await t.app.inject({ method: 'GET', url: '/user/id', query: { userId: 'nobody' } });
    expect([again.statusCode, again.json()]).toEqual([200, { status: 'UNKNOWN_USER_ID_ERROR' }]);
  });
});
