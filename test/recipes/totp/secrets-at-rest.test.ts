import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, createTestDatabase, type TestApp, type TestDatabase } from '../../helper.js';
import { loadConfig } from '../../../src/config/load.js';
import { embeddedTotpSecretKeys } from '../../../src/recipes/totp/embedded-key.js';
import { totp } from '../../../src/recipes/totp/code.js';
import { decodeBase32 } from '../../../src/base32.js';

// Issue 50 item 9: TOTP secrets are sealed at rest (AES-256-GCM, key id beside each secret), created, imported and
// bulk-imported alike; clear secrets of an earlier version are sealed at the first start with a key; a core that
// cannot open the stored secrets refuses to start, naming the setting.

const SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const key = (id: string, fill: number) => `${id}:${Buffer.alloc(32, fill).toString('base64')}`;
const openSealed = (keyBytes: Buffer, userId: string, sealed: string) => {
  const bytes = Buffer.from(sealed, 'base64');
  const decipher = crypto.createDecipheriv('aes-256-gcm', keyBytes, bytes.subarray(0, 12));
  decipher.setAAD(Buffer.from(`totp:${userId}`));
  decipher.setAuthTag(bytes.subarray(bytes.length - 16));
  return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString('utf8');
};
const stored = async (db: TestDatabase) =>
  (await db.pool.query('SELECT user_id, device_name, secret_key, secret_key_id FROM totp_devices ORDER BY user_id, device_name')).rows;
const verifyAt59 = async (t: TestApp, userId: string) => {
  t.clock.nowMs = 59_000;
  return (await call(t.app, 'POST', '/public/recipe/totp/verify', { body: { userId, totp: '287082' } })).json;
};

describe('TOTP secrets at rest', () => {
  let db: TestDatabase;
  const apps: TestApp[] = [];
  const start = async (keys: string | undefined) => {
    const t = await createTestApp({ totp_secret_keys: keys }, db);
    apps.push(t);
    return t;
  };
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    for (const t of apps) await t.app.close();
    await db.drop();
  });

  it('starts without a key while no device exists; creating one then answers 500 naming the setting', async () => {
    const t = await start(undefined);
    const reply = await call(t.app, 'POST', '/recipe/totp/device', { body: { userId: 'u0', skew: 1, period: 30 } });
    expect({ statusCode: reply.statusCode, body: reply.body }).toEqual({
      statusCode: 500,
      body: "'totp_secret_keys' is not configured: set it in config.yaml, TOTP_SECRET_KEYS or TOTP_SECRET_KEYS_FILE\n",
    });
    expect(await stored(db)).toEqual([]);
  });

  it('seals created, imported and bulk-imported secrets under the newest key; the codes still verify', async () => {
    const t = await start(key('k1', 1));
    const created = await call(t.app, 'POST', '/recipe/totp/device', { body: { userId: 'u1', deviceName: 'c', skew: 1, period: 30 } });
    const createdSecret = (created.json as { secret: string }).secret;
    await call(t.app, 'POST', '/recipe/totp/device/import', {
      body: { userId: 'u1', deviceName: 'i', skew: 1, period: 30, secretKey: SECRET },
    });
    const bulk = await call(t.app, 'POST', '/bulk-import/users', {
      body: {
        users: [
          {
            externalUserId: 'u2',
            totpDevices: [{ secretKey: SECRET, deviceName: 'b' }],
            loginMethods: [{ recipeId: 'emailpassword', email: 'b@x.com', plainTextPassword: 'pw-12345' }],
          },
        ],
      },
    });
    expect(bulk.statusCode).toBe(200);
    await t.app.services.bulkImportWorker.processUntilEmpty();

    const rows = await stored(db);
    expect(rows.map((row) => [row.user_id, row.device_name, row.secret_key_id])).toEqual([
      ['u1', 'c', 'k1'],
      ['u1', 'i', 'k1'],
      ['u2', 'b', 'k1'],
    ]);
    for (const row of rows) expect(row.secret_key).not.toMatch(/^[A-Z2-7]{32}$/);
    const k1 = Buffer.alloc(32, 1);
    expect(rows.map((row) => openSealed(k1, row.user_id, row.secret_key))).toEqual([createdSecret, SECRET, SECRET]);
    expect(await verifyAt59(t, 'u1')).toEqual({ status: 'OK' });
    expect(await verifyAt59(t, 'u2')).toEqual({ status: 'OK' });
  });

  it('rotates: with a second key listed last, new secrets use it and old ones still open', async () => {
    const t = await start(`${key('k1', 1)},${key('k2', 2)}`);
    await call(t.app, 'POST', '/recipe/totp/device/import', {
      body: { userId: 'u3', deviceName: 'r', skew: 1, period: 30, secretKey: SECRET },
    });
    const rows = await stored(db);
    expect(rows.find((row) => row.user_id === 'u3')?.secret_key_id).toBe('k2');
    t.clock.nowMs = 300_000;
    const code = totp(decodeBase32(SECRET)!, t.clock.nowMs, { period: 30, algorithm: 'SHA1', digits: 6 });
    expect((await call(t.app, 'POST', '/public/recipe/totp/verify', { body: { userId: 'u2', totp: code } })).json).toEqual({
      status: 'OK',
    });
    expect(await verifyAt59(t, 'u3')).toEqual({ status: 'OK' });
  });

  it('refuses to start without a key, or without a key the stored secrets need, naming the setting', async () => {
    await expect(start(undefined)).rejects.toThrow(
      "4 TOTP devices exist but 'totp_secret_keys' (TOTP_SECRET_KEYS or TOTP_SECRET_KEYS_FILE) is not set: set it to the key their secrets need",
    );
    await expect(start(key('k2', 2))).rejects.toThrow(
      "TOTP secrets are sealed with key k1, which 'totp_secret_keys' (TOTP_SECRET_KEYS or TOTP_SECRET_KEYS_FILE) does not list",
    );
  });

  it('seals secrets an earlier version stored in clear at the first start with a key', async () => {
    await db.pool.query(
      `INSERT INTO totp_devices (user_id, device_name, secret_key, period, skew, verified, created_at) VALUES ('old', 'd', $1, 30, 1, true, 0)`,
      [SECRET],
    );
    const t = await start(`${key('k1', 1)},${key('k2', 2)}`);
    const row = (await stored(db)).find((candidate) => candidate.user_id === 'old')!;
    expect(row.secret_key_id).toBe('k2');
    expect(openSealed(Buffer.alloc(32, 2), 'old', row.secret_key)).toBe(SECRET);
    expect(await verifyAt59(t, 'old')).toEqual({ status: 'OK' });
  });
});

describe('the TOTP key setting', () => {
  it('reads TOTP_SECRET_KEYS_FILE and refuses a key of the wrong size, naming the setting', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'totp-key-'));
    const file = path.join(dir, 'keys');
    fs.writeFileSync(file, `${key('a', 3)}\n`);
    const config = loadConfig({ argv: ['--config=test/fixtures/empty.yaml'], env: { TOTP_SECRET_KEYS_FILE: file } });
    expect(config.totp_secret_keys).toEqual([{ id: 'a', key: Buffer.alloc(32, 3) }]);
    expect(() => loadConfig({ argv: ['--config=test/fixtures/empty.yaml'], env: { TOTP_SECRET_KEYS: 'a:AAAA' } })).toThrow(
      "'totp_secret_keys' entry 1 (a): the key must be 32 bytes in base64 (openssl rand -base64 32)",
    );
  });

  it('gives the embedded database a key file of its own, made once, readable by its owner only', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'totp-embedded-'));
    const first = embeddedTotpSecretKeys(dir);
    expect(first.created).toBe(true);
    expect(fs.statSync(first.file).mode & 0o777).toBe(0o600);
    const second = embeddedTotpSecretKeys(dir);
    expect(second).toEqual({ ...first, created: false });
    expect(first.keys).toHaveLength(1);
  });
});
