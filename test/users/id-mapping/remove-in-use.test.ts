import { describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { call, countRows, snapshot, useTestApp } from '../../helper.js';
import { insertUser, mapUser } from '../fixtures.js';
import { perUserStores } from '../../../src/per-user-stores.js';

// Each per-user store, given data under an id through its own route.
const put = (app: FastifyInstance, url: string, body: unknown) => call(app, 'PUT', url, { body });
const post = (app: FastifyInstance, url: string, body: unknown) => call(app, 'POST', url, { body });
const writers: Record<string, (app: FastifyInstance, id: string) => Promise<unknown>> = {
  Session: (app, id) =>
    post(app, '/public/recipe/session', {
      userId: id,
      userDataInJWT: {},
      userDataInDatabase: {},
      useDynamicSigningKey: true,
      enableAntiCsrf: false,
    }),
  UserMetadata: (app, id) => put(app, '/recipe/user/metadata', { userId: id, metadataUpdate: { plan: 'pro' } }),
  UserRoles: async (app, id) => {
    await put(app, '/recipe/role', { role: 'admin', permissions: [] });
    return put(app, '/recipe/user/role', { userId: id, role: 'admin' });
  },
  TOTP: (app, id) => post(app, '/recipe/totp/device', { userId: id, deviceName: 'phone', skew: 1, period: 30 }),
  'TOTP (recovery codes)': (app, id) => post(app, '/recipe/recoverycodes/generate', { userId: id, count: 2 }),
};
const perUserTables = ['session_info', 'user_metadata', 'user_roles', 'totp_devices', 'recovery_codes'];

describe('POST /recipe/userid/map/remove while a store holds data of the external id (§9.3)', () => {
  const t = useTestApp({}, { truncateEach: true });
  const remove = (body: unknown) => call(t.app, 'POST', '/recipe/userid/map/remove', { body });

  it('asks every store of the one list, in the reference order', () => {
    expect(perUserStores.map((store) => store.recipe)).toEqual([
      'Session',
      'UserMetadata',
      'UserRoles',
      'EmailVerification',
      'TOTP',
      'WebAuthn',
    ]);
  });

  it.each(Object.keys(writers))('refuses while %s data is under the external id, then removes with force', async (name) => {
    const user = await insertUser(t.db, { email: 'a@example.com' });
    await mapUser(t.db, user.userId, 'old-1');
    const written = (await writers[name](t.app, 'old-1')) as { statusCode: number; body: string };
    expect(written.statusCode, written.body).toBe(200);
    const before = await snapshot(t.db);
    for (const userIdType of ['EXTERNAL', 'SUPERTOKENS', 'ANY']) {
      const reply = await remove({ userId: userIdType === 'EXTERNAL' ? 'old-1' : user.userId, userIdType });
      expect([reply.statusCode, reply.body]).toEqual([400, `UserId is already in use in ${name.split(' ')[0]} recipe\n`]);
    }
    expect(await snapshot(t.db)).toEqual(before);
    expect((await remove({ userId: 'old-1', force: false })).statusCode).toBe(400);

    expect((await remove({ userId: 'old-1', force: true })).json).toEqual({ status: 'OK', didMappingExist: true });
    expect(await countRows(t.db, 'user_id_mappings')).toBe(0);
  });

  it('names the first store holding data when several do', async () => {
    const user = await insertUser(t.db);
    await mapUser(t.db, user.userId, 'old-1');
    for (const name of ['TOTP', 'UserRoles', 'UserMetadata']) await writers[name](t.app, 'old-1');
    const reply = await remove({ userId: 'old-1' });
    expect([reply.statusCode, reply.body]).toEqual([400, 'UserId is already in use in UserMetadata recipe\n']);
  });

  it('removes the mapping when only expired sessions or data under the internal id remain', async () => {
    const user = await insertUser(t.db);
    await mapUser(t.db, user.userId, 'old-1');
    await writers.Session(t.app, 'old-1');
    await writers.UserMetadata(t.app, user.userId);
    t.clock.advance((144_000 + 1) * 60_000);
    expect((await remove({ userId: 'old-1' })).json).toEqual({ status: 'OK', didMappingExist: true });
    expect(await countRows(t.db, 'user_id_mappings')).toBe(0);
  });
});

describe('POST /user/remove empties every per-user store of the removed ids', () => {
  const t = useTestApp({}, { truncateEach: true });

  it('under the external id and the internal one', async () => {
    const user = await insertUser(t.db, { email: 'a@example.com' });
    const other = await insertUser(t.db, { email: 'b@example.com' });
    await mapUser(t.db, user.userId, 'old-1');
    for (const write of Object.values(writers)) {
      await write(t.app, 'old-1');
      await write(t.app, other.userId);
    }
    await put(t.app, '/recipe/user/metadata', { userId: user.userId, metadataUpdate: { internal: true } });
    expect((await call(t.app, 'POST', '/user/remove', { body: { userId: 'old-1' } })).json).toEqual({ status: 'OK' });
    for (const table of perUserTables) {
      const { rows } = await t.db.pool.query(`SELECT DISTINCT user_id FROM ${table}`);
      expect(rows, table).toEqual([{ user_id: other.userId }]);
    }
  });
});
