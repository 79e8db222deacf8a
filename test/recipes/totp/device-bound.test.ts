import crypto from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { call, snapshot, truncateAll, useTestApp } from '../../helper.js';
import { decodeBase32, encodeBase32 } from '../../../src/base32.js';
import { totp } from '../../../src/recipes/totp/code.js';

// Issue 50 item 5: a user holds at most 10 TOTP devices, and a code check costs the same whatever the user holds
// (20,000 imported devices once made each check take 2 s and let a random code pass a third of the time).

const secret = () => encodeBase32(crypto.randomBytes(20), { padding: false });
const codeOf = (base32: string, nowMs: number) => totp(decodeBase32(base32)!, nowMs, { period: 30, algorithm: 'SHA1', digits: 6 });

describe('TOTP devices per user', () => {
  const t = useTestApp();
  beforeEach(() => truncateAll(t.db));
  afterEach(() => vi.restoreAllMocks());
  const post = (url: string, body: unknown) => call(t.app, 'POST', url, { body });
  const create = (deviceName: string) => post('/recipe/totp/device', { userId: 'u1', deviceName, skew: 1, period: 30 });
  const importDevice = (deviceName: string, secretKey = secret()) =>
    post('/recipe/totp/device/import', { userId: 'u1', deviceName, skew: 1, period: 30, secretKey });

  it('creates at most 10, refusing the 11th and changing nothing; an unverified one of the same name is still replaced', async () => {
    for (let n = 0; n < 10; n++) expect((await create(`d${n}`)).json).toMatchObject({ status: 'OK', deviceName: `d${n}` });
    const before = await snapshot(t.db);
    const refused = await create('d10');
    expect({ statusCode: refused.statusCode, body: refused.body }).toEqual({
      statusCode: 400,
      body: 'A user can hold at most 10 TOTP devices: remove one first\n',
    });
    expect(await snapshot(t.db)).toEqual(before);
    expect((await create('d3')).json).toMatchObject({ status: 'OK', deviceName: 'd3' });
    expect((await post('/recipe/totp/device/remove', { userId: 'u1', deviceName: 'd0' })).json).toEqual({
      status: 'OK',
      didDeviceExist: true,
    });
    expect((await create('d10')).json).toMatchObject({ status: 'OK', deviceName: 'd10' });
  });

  it('imports at most 10', async () => {
    for (let n = 0; n < 10; n++) expect((await importDevice(`d${n}`)).json).toEqual({ status: 'OK', deviceName: `d${n}` });
    const refused = await importDevice('d10');
    expect({ statusCode: refused.statusCode, body: refused.body }).toEqual({
      statusCode: 400,
      body: 'A user can hold at most 10 TOTP devices: remove one first\n',
    });
    expect(await call(t.app, 'GET', '/recipe/totp/device/list', { query: { userId: 'u1' } }).then((reply) => reply.json)).toMatchObject({
      devices: expect.arrayContaining([expect.objectContaining({ name: 'd9' })]),
    });
  });

  it('refuses 11 devices for one user in bulk import', async () => {
    const totpDevices = Array.from({ length: 11 }, (_, n) => ({ secretKey: secret(), deviceName: `d${n}` }));
    const reply = await post('/bulk-import/users', {
      users: [{ totpDevices, loginMethods: [{ recipeId: 'emailpassword', email: 'a@x.com', plainTextPassword: 'pw-12345' }] }],
    });
    expect({ statusCode: reply.statusCode, body: reply.json }).toEqual({
      statusCode: 400,
      body: {
        error: 'Data has missing or invalid fields. Please check the users field for more details.',
        users: [{ index: 0, errors: ['totpDevices can contain at most 10 devices'] }],
      },
    });
  });

  it('computes the same number of HMACs for a user with one device as for one with ten', async () => {
    t.clock.nowMs = 1_700_000_000_000;
    await importDevice('only', secret());
    for (let n = 0; n < 10; n++)
      await post('/recipe/totp/device/import', { userId: 'u2', deviceName: `d${n}`, skew: 0, period: 30, secretKey: secret() });
    const hmacs = vi.spyOn(crypto, 'createHmac');
    const count = async (userId: string) => {
      hmacs.mockClear();
      await post('/public/recipe/totp/verify', { userId, totp: '000000' });
      return hmacs.mock.calls.length;
    };
    const one = await count('u1');
    expect(await count('u2')).toBe(one);
    expect(one).toBe(10 * 21);
  });

  it('checks only the first 10 devices of a user who holds more from before the bound', async () => {
    t.clock.nowMs = 1_700_000_000_000;
    const secrets = Array.from({ length: 12 }, secret);
    for (const [n, key] of secrets.entries()) {
      await t.db.pool.query(
        `INSERT INTO totp_devices (user_id, device_name, secret_key, period, skew, verified, created_at) VALUES ('u1', $1, $2, 30, 0, true, $3)`,
        [`d${n}`, key, n],
      );
    }
    expect((await post('/public/recipe/totp/verify', { userId: 'u1', totp: codeOf(secrets[11], t.clock.nowMs) })).json).toMatchObject({
      status: 'INVALID_TOTP_ERROR',
    });
    expect((await post('/public/recipe/totp/verify', { userId: 'u1', totp: codeOf(secrets[9], t.clock.nowMs) })).json).toEqual({
      status: 'OK',
    });
  });
});
