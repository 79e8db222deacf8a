import { beforeEach, describe, expect, it } from 'vitest';
import { call, snapshot, truncateAll, useTestApp } from '../../helper.js';

const METADATA = '/recipe/user/metadata';

describe('user metadata routes (contract M-3)', () => {
  const t = useTestApp();
  beforeEach(() => truncateAll(t.db));
  const put = (userId: unknown, metadataUpdate: unknown) => call(t.app, 'PUT', METADATA, { body: { userId, metadataUpdate } });
  const get = (userId: string) => call(t.app, 'GET', METADATA, { query: { userId } });
  const storedText = async () =>
    (
      await t.db.pool.query<{ user_id: string; text: string }>('SELECT user_id, metadata::text AS text FROM user_metadata ORDER BY user_id')
    ).rows.map(
      // Key order as stored (whitespace is PostgreSQL's).
      (row) => ({ user_id: row.user_id, text: JSON.stringify(JSON.parse(row.text)) }),
    );

  it('merges shallowly, a top-level null deleting a key, and a replaced key moving last', async () => {
    expect((await put('ext-1', { a: 1, b: { x: 1 } })).json).toEqual({ metadata: { a: 1, b: { x: 1 } }, status: 'OK' });
    const second = await put('ext-1', { b: { y: 2 }, a: null, c: null });
    expect(second.statusCode).toBe(200);
    expect(second.body).toBe('{"metadata":{"b":{"y":2}},"status":"OK"}\n');

    await put('u2', { a: 1, b: 2 });
    expect((await put('u2', { a: 3 })).body).toBe('{"metadata":{"b":2,"a":3},"status":"OK"}\n');
    expect((await get('u2')).body).toBe('{"metadata":{"b":2,"a":3},"status":"OK"}\n');
    expect(await storedText()).toEqual([
      { user_id: 'ext-1', text: '{"b":{"y":2}}' },
      { user_id: 'u2', text: '{"b":2,"a":3}' },
    ]);
  });

  it('follows the CDI example and writes the row even for an empty update', async () => {
    await put('u1', { preferences: { theme: 'dark' }, notifications: { email: true }, todos: ['example'] });
    expect((await put('u1', { notifications: { sms: true }, todos: null })).json).toEqual({
      metadata: { preferences: { theme: 'dark' }, notifications: { sms: true } },
      status: 'OK',
    });
    expect((await put('empty', {})).json).toEqual({ metadata: {}, status: 'OK' });
    expect(await storedText()).toEqual([
      { user_id: 'empty', text: '{}' },
      { user_id: 'u1', text: '{"preferences":{"theme":"dark"},"notifications":{"sms":true}}' },
    ]);
  });

  it('reads {} for an unknown id, keeps ids opaque, and removes', async () => {
    expect((await get('nobody')).json).toEqual({ metadata: {}, status: 'OK' });
    await put(' spaced ', { k: 'v' });
    expect((await get('spaced')).json).toEqual({ metadata: {}, status: 'OK' });
    expect((await get(' spaced ')).json).toEqual({ metadata: { k: 'v' }, status: 'OK' });
    expect((await call(t.app, 'POST', `${METADATA}/remove`, { body: { userId: ' spaced ' } })).json).toEqual({ status: 'OK' });
    expect((await call(t.app, 'POST', `${METADATA}/remove`, { body: { userId: ' spaced ' } })).json).toEqual({ status: 'OK' });
    expect(await storedText()).toEqual([]);
  });

  it('refuses a bulk read whose answer would pass 16 MiB, naming the limit, before reading any value', async () => {
    // Just under 1 MiB of stored JSON text each (the default body limit), so 17 of them pass 16 MiB.
    const big = { blob: 'x'.repeat(1_000_000) };
    expect((await put('big', big)).json.status).toBe('OK');
    const bytes = (
      await t.db.pool.query<{ n: number }>("SELECT octet_length(metadata::text) AS n FROM user_metadata WHERE user_id = 'big'")
    ).rows[0].n;
    const fits = Math.floor((16 * 1024 * 1024) / bytes);
    const before = await snapshot(t.db);

    const refused = await call(t.app, 'POST', `${METADATA}/bulk`, { body: { userIds: Array(fits + 1).fill('big') } });
    expect([refused.statusCode, refused.body.trim()]).toEqual([
      400,
      'The metadata of these userIds is more than 16777216 bytes, the most one answer holds; ask for fewer users',
    ]);
    expect(await snapshot(t.db)).toEqual(before);

    const answered = await call(t.app, 'POST', `${METADATA}/bulk`, { body: { userIds: [...Array(fits).fill('big'), 'none'] } });
    expect(answered.statusCode).toBe(200);
    expect(answered.json).toEqual({
      status: 'OK',
      users: [...Array(fits).fill({ userId: 'big', metadata: big }), { userId: 'none', metadata: null }],
    });
  });

  it('answers many users at once in input order, null where nothing is stored', async () => {
    await put('u1', { plan: 'pro' });
    const reply = await call(t.app, 'POST', `${METADATA}/bulk`, { body: { userIds: ['u2', 'u1', 'u1'] } });
    expect(reply.json).toEqual({
      status: 'OK',
      users: [
        { userId: 'u2', metadata: null },
        { userId: 'u1', metadata: { plan: 'pro' } },
        { userId: 'u1', metadata: { plan: 'pro' } },
      ],
    });
    expect((await call(t.app, 'POST', `${METADATA}/bulk`, { body: { userIds: [] } })).json).toEqual({ status: 'OK', users: [] });
  });

  it.each([
    ['missing userId', 'GET', undefined, "Field name 'userId' is missing in GET request"],
    ['userId not a string', 'PUT', { userId: 1, metadataUpdate: {} }, "Field name 'userId' is invalid in JSON input"],
    ['metadataUpdate an array', 'PUT', { userId: 'u1', metadataUpdate: [] }, "Field name 'metadataUpdate' is invalid in JSON input"],
    ['metadataUpdate a string', 'PUT', { userId: 'u1', metadataUpdate: 'x' }, "Field name 'metadataUpdate' is invalid in JSON input"],
    ['metadataUpdate missing', 'PUT', { userId: 'u1' }, "Field name 'metadataUpdate' is invalid in JSON input"],
    ['userIds not an array', 'POST', { userIds: 'u1' }, "Field name 'userIds' is invalid in JSON input"],
    ['userIds with a number', 'POST', { userIds: ['u1', 2] }, 'userIds array must contain only strings'],
    [
      'userIds over 500',
      'POST',
      { userIds: Array.from({ length: 501 }, (_, i) => `u${i}`) },
      'You can only query up to 500 users at a time.',
    ],
  ] as const)('refuses %s with a 400 naming it, writing nothing', async (_name, method, body, message) => {
    await put('u1', { keep: true });
    const before = await snapshot(t.db);
    const url = method === 'POST' ? `${METADATA}/bulk` : METADATA;
    const reply = await call(t.app, method, url, { body });
    expect({ statusCode: reply.statusCode, body: reply.body }).toEqual({ statusCode: 400, body: `${message}\n` });
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('is app-scoped: a tenant prefix is refused at cdi 5.x', async () => {
    const reply = await call(t.app, 'GET', `/t1${METADATA}`, { query: { userId: 'u1' } });
    expect(reply.statusCode).toBe(403);
    expect(reply.body).toBe('Only public tenantId can call this app specific API\n');
  });
});
