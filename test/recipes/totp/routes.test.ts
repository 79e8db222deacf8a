import { beforeEach, describe, expect, it } from 'vitest';
import { call, snapshot, truncateAll, useTestApp } from '../../helper.js';
import { decodeBase32 } from '../../../src/base32.js';
import { totp } from '../../../src/recipes/totp/code.js';

const SHA1_BASE32 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const SHA1_HEX = '3132333435363738393031323334353637383930';
const SHA256_BASE32 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA';
const invalid = (current: number) => ({
  status: 'INVALID_TOTP_ERROR',
  currentNumberOfFailedAttempts: current,
  maxNumberOfFailedAttempts: 5,
});

describe('TOTP routes (contract M-5, M-9 items 1–7)', () => {
  const t = useTestApp();
  beforeEach(() => truncateAll(t.db));
  const post = (url: string, body: unknown, headers?: Record<string, string>) => call(t.app, 'POST', url, { body, headers });
  const importDevice = (body: Record<string, unknown>) =>
    post('/recipe/totp/device/import', { userId: 'u1', deviceName: 'd', skew: 0, period: 30, ...body });
  const verify = async (code: string, userId = 'u1') => (await post('/public/recipe/totp/verify', { userId, totp: code })).json;
  const at = (seconds: number) => {
    t.clock.nowMs = seconds * 1000;
  };
  // Secrets are sealed at rest (secrets-at-rest.test.ts); these tests read them opened.
  const devices = async () =>
    (
      await t.db.pool.query(
        'SELECT user_id, device_name, secret_key, secret_key_id, period, skew, verified, algorithm, digits FROM totp_devices ORDER BY device_name',
      )
    ).rows.map(({ secret_key_id: secretKeyId, ...row }) => ({
      ...row,
      secret_key: t.app.services.totpSecrets.open(row.user_id, { secretKey: row.secret_key, secretKeyId }),
    }));

  it.each([
    ['base32', { secretKey: SHA1_BASE32 }],
    ['base32 in lower-case groups', { secretKey: 'gezd gnbv gy3t qojq gezd gnbv gy3t qojq' }],
    ['padded base32', { secretKey: `${SHA1_BASE32}====` }],
    ['hex', { secretKey: SHA1_HEX, secretEncoding: 'hex' }],
    ['base64', { secretKey: 'MTIzNDU2Nzg5MDEyMzQ1Njc4OTA=', secretEncoding: 'base64' }],
    ['raw (Keycloak)', { secretKey: '12345678901234567890', secretEncoding: 'raw' }],
    ['an otpauth URL', { secretKey: `otpauth://totp/Acme:alice@example.com?secret=${SHA1_BASE32}&issuer=Acme&period=30` }],
  ])('imports the RFC key from %s, stored as canonical base32, and accepts its code', async (_name, body) => {
    expect((await importDevice(body)).json).toEqual({ status: 'OK', deviceName: 'd' });
    expect(await devices()).toEqual([
      { user_id: 'u1', device_name: 'd', secret_key: SHA1_BASE32, period: 30, skew: 0, verified: true, algorithm: 'SHA1', digits: 6 },
    ]);
    at(59);
    expect(await verify('287082')).toEqual({ status: 'OK' });
  });

  it.each([
    ['hex read as base32', { secretKey: SHA1_HEX }, 'secretKey could not be decoded as base32'],
    ['an 8-character key', { secretKey: 'JBSWY3DP' }, 'secretKey is too short (40 bits; minimum 80)'],
    ['an HOTP URL', { secretKey: 'otpauth://hotp/x?secret=JBSWY3DPEHPK3PXP' }, 'only TOTP devices can be imported (otpauth://hotp)'],
    ['a URL without secret', { secretKey: 'otpauth://totp/x?issuer=A' }, 'secretKey is not a valid otpauth://totp URL'],
    [
      'a URL period against the field',
      { secretKey: `otpauth://totp/x?secret=${SHA1_BASE32}&period=60` },
      'period in the otpauth URL conflicts with period',
    ],
    ['odd hex', { secretKey: '313', secretEncoding: 'hex' }, 'secretKey could not be decoded as hex'],
    ['bad base64', { secretKey: 'MTIz*DU2', secretEncoding: 'base64' }, 'secretKey could not be decoded as base64'],
    [
      'an unknown encoding',
      { secretKey: SHA1_BASE32, secretEncoding: 'base58' },
      'Invalid secretEncoding. Pass one of base32, hex, base64, raw or, otpauth!',
    ],
    ['an unknown algorithm', { secretKey: SHA1_BASE32, algorithm: 'MD5' }, 'Invalid algorithm. Pass one of SHA1, SHA256 or, SHA512!'],
    ['9 digits', { secretKey: SHA1_BASE32, digits: 9 }, 'digits should be 6, 7 or 8'],
    ['a key over 160 bytes', { secretKey: 'ab'.repeat(161), secretEncoding: 'hex' }, 'TOTP secretKey is too long. Max length is 256.'],
    ['skew 11', { secretKey: SHA1_BASE32, skew: 11 }, 'skew must be <= 10'],
    ['skew -1', { secretKey: SHA1_BASE32, skew: -1 }, 'skew must be >= 0'],
    ['period 0', { secretKey: SHA1_BASE32, period: 0 }, 'period must be > 0'],
    ['period 3601', { secretKey: SHA1_BASE32, period: 3601 }, 'period must be <= 3600'],
    ['period as a string', { secretKey: SHA1_BASE32, period: '30' }, "Field name 'period' is invalid in JSON input"],
    ['skew 1.5', { secretKey: SHA1_BASE32, skew: 1.5 }, "Field name 'skew' is invalid in JSON input"],
    ['an empty secret', { secretKey: '' }, 'secretKey cannot be empty'],
    ['an empty device name', { secretKey: SHA1_BASE32, deviceName: '' }, 'deviceName cannot be empty'],
  ])('refuses %s with a 400 naming it, writing nothing', async (_name, body, message) => {
    const before = await snapshot(t.db);
    const reply = await importDevice(body);
    expect({ statusCode: reply.statusCode, body: reply.body }).toEqual({ statusCode: 400, body: `${message}\n` });
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('keeps the URL parameters and explicit algorithm and digits (M-9 item 3)', async () => {
    await importDevice({ secretKey: SHA1_BASE32, digits: 8 });
    await importDevice({ userId: 'u2', secretKey: SHA256_BASE32, algorithm: 'SHA256', digits: 8 });
    await importDevice({ userId: 'u3', secretKey: `otpauth://totp/x?secret=${SHA256_BASE32}&algorithm=SHA256&digits=8` });
    at(59);
    expect(await verify('94287082')).toEqual({ status: 'OK' });
    expect(await verify('46119246', 'u2')).toEqual({ status: 'OK' });
    expect(await verify('46119246', 'u3')).toEqual({ status: 'OK' });
  });

  it('counts skew in periods (M-9 item 4)', async () => {
    await importDevice({ secretKey: SHA1_BASE32, skew: 1 });
    await importDevice({ userId: 'u0', secretKey: SHA1_BASE32, skew: 0 });
    at(1_700_000_000);
    expect(await verify('276857')).toEqual({ status: 'OK' });
    expect(await verify('921300')).toEqual({ status: 'OK' });
    expect(await verify('732303')).toEqual({ status: 'OK' });
    expect(await verify('276857', 'u0')).toEqual(invalid(1));
    expect(await verify('921300', 'u0')).toEqual({ status: 'OK' });
  });

  it('refuses a replayed code, also across the two verify routes (M-9 item 5)', async () => {
    await importDevice({ secretKey: SHA1_BASE32, skew: 1 });
    at(59);
    expect(await verify('287082')).toEqual({ status: 'OK' });
    at(60);
    expect(await verify('287082')).toEqual(invalid(1));
    expect((await t.db.pool.query('SELECT code, is_valid, expiry_time, created_time FROM totp_used_codes ORDER BY id')).rows).toEqual([
      { code: '287082', is_valid: true, expiry_time: 149000, created_time: 59000 },
      { code: '287082', is_valid: false, expiry_time: 150000, created_time: 60000 },
    ]);

    const created = await post('/recipe/totp/device', { userId: 'u2', skew: 1, period: 30 });
    const key = decodeBase32(created.json.secret)!;
    const code = totp(key, t.clock.nowMs, { period: 30, algorithm: 'SHA1', digits: 6 });
    expect((await post('/public/recipe/totp/device/verify', { userId: 'u2', deviceName: 'TOTP Device 0', totp: code })).json).toEqual({
      status: 'OK',
      wasAlreadyVerified: false,
    });
    expect(await verify(code, 'u2')).toEqual(invalid(1));
  });

  it('locks after five wrong codes for the cooldown, then counts afresh (M-9 item 6)', async () => {
    await importDevice({ secretKey: SHA1_BASE32, skew: 0 });
    for (let second = 0; second < 5; second++) {
      at(second);
      expect(await verify('000000')).toEqual(invalid(second + 1));
    }
    at(5);
    const valid = () => totp(decodeBase32(SHA1_BASE32)!, t.clock.nowMs, { period: 30, algorithm: 'SHA1', digits: 6 });
    const limit = { status: 'LIMIT_REACHED_ERROR', retryAfterMs: 899000, currentNumberOfFailedAttempts: 5, maxNumberOfFailedAttempts: 5 };
    expect(await verify(valid())).toEqual(limit);
    const old = await post('/public/recipe/totp/verify', { userId: 'u1', totp: valid() }, { 'cdi-version': '4.0' });
    expect(old.json).toEqual({ status: 'LIMIT_REACHED_ERROR', retryAfterMs: 899000 });
    at(904);
    expect(await verify(valid())).toEqual({ status: 'OK' });
    expect(await verify('000000')).toEqual(invalid(1));
  });

  it('answers a code longer than 8 characters as wrong without recording it', async () => {
    await importDevice({ secretKey: SHA1_BASE32 });
    for (let i = 1; i <= 4; i++) expect(await verify('111111')).toEqual(invalid(i));
    expect(await verify('123456789')).toEqual(invalid(5));
    expect(await verify('111111')).toEqual(invalid(5));
  });

  it('runs the device lifecycle (M-9 item 7)', async () => {
    at(1_700_000_000);
    const created = await post('/recipe/totp/device', { userId: 'u2', skew: 1, period: 30 });
    expect(created.json).toEqual({ status: 'OK', deviceName: 'TOTP Device 0', secret: expect.stringMatching(/^[A-Z2-7]{32}$/) });
    expect((await call(t.app, 'GET', '/recipe/totp/device/list', { query: { userId: 'u2' } })).json).toEqual({
      status: 'OK',
      devices: [{ name: 'TOTP Device 0', period: 30, skew: 1, verified: false }],
    });
    const code = totp(decodeBase32(created.json.secret)!, t.clock.nowMs, { period: 30, algorithm: 'SHA1', digits: 6 });
    expect(await verify(code, 'u2')).toEqual(invalid(1));
    const verifyDevice = async (deviceName: string, totpCode: string) =>
      (await post('/public/recipe/totp/device/verify', { userId: 'u2', deviceName, totp: totpCode })).json;
    expect(await verifyDevice('TOTP Device 0', code)).toEqual({ status: 'OK', wasAlreadyVerified: false });
    expect(await verifyDevice('TOTP Device 0', 'mycode')).toEqual({ status: 'OK', wasAlreadyVerified: true });
    expect(await verifyDevice('nope', code)).toEqual({ status: 'UNKNOWN_DEVICE_ERROR' });

    expect((await post('/recipe/totp/device', { userId: 'u2', deviceName: 'TOTP Device 0', skew: 1, period: 30 })).json).toEqual({
      status: 'DEVICE_ALREADY_EXISTS_ERROR',
    });
    expect((await post('/recipe/totp/device', { userId: 'u2', skew: 1, period: 30 })).json.deviceName).toBe('TOTP Device 1');
    const rename = async (existingDeviceName: string, newDeviceName: string) =>
      (await call(t.app, 'PUT', '/recipe/totp/device', { body: { userId: 'u2', existingDeviceName, newDeviceName } })).json;
    expect(await rename('TOTP Device 1', 'TOTP Device 0')).toEqual({ status: 'DEVICE_ALREADY_EXISTS_ERROR' });
    expect(await rename('missing', 'x')).toEqual({ status: 'UNKNOWN_DEVICE_ERROR' });
    expect(await rename('TOTP Device 1', 'TOTP Device 1')).toEqual({ status: 'OK' });
    expect(await rename('TOTP Device 1', 'phone')).toEqual({ status: 'OK' });
    expect((await post('/recipe/totp/device/status/bulk', { userIds: ['u2', 'nobody'] })).json).toEqual({
      status: 'OK',
      users: [
        { userId: 'u2', hasVerifiedDevice: true },
        { userId: 'nobody', hasVerifiedDevice: null },
      ],
    });

    const remove = async (deviceName: string) => (await post('/recipe/totp/device/remove', { userId: 'u2', deviceName })).json;
    expect(await remove('phone')).toEqual({ status: 'OK', didDeviceExist: true });
    expect(await remove('TOTP Device 0')).toEqual({ status: 'OK', didDeviceExist: true });
    expect(await remove('TOTP Device 0')).toEqual({ status: 'OK', didDeviceExist: false });
    expect(await verify(code, 'u2')).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect((await t.db.pool.query('SELECT count(*)::int AS n FROM totp_used_codes')).rows[0].n).toBe(0);

    const nullName = await post('/recipe/totp/device/remove', { userId: 'u2', deviceName: null });
    expect(nullName.body).toBe("Field name 'deviceName' is invalid in JSON input\n");
    const tenant = await call(t.app, 'GET', '/t1/recipe/totp/device/list', { query: { userId: 'u2' } });
    expect({ statusCode: tenant.statusCode, body: tenant.body }).toEqual({
      statusCode: 403,
      body: 'Only public tenantId can call this app specific API\n',
    });
  });

  it('refuses empty ids and names and a missing totp', async () => {
    const cases = [
      [await call(t.app, 'GET', '/recipe/totp/device/list', { query: { userId: '' } }), 'userId cannot be empty'],
      [await call(t.app, 'GET', '/recipe/totp/device/list'), "Field name 'userId' is missing in GET request"],
      [await post('/recipe/totp/device', { userId: '', skew: 1, period: 30 }), 'userId cannot be empty'],
      [await post('/recipe/totp/device', { userId: 'u', skew: 1 }), "Field name 'period' is invalid in JSON input"],
      [await post('/public/recipe/totp/verify', { userId: 'u' }), "Field name 'totp' is invalid in JSON input"],
      [await post('/public/recipe/totp/verify', { userId: 'u', totp: 123456 }), "Field name 'totp' is invalid in JSON input"],
      [
        await call(t.app, 'PUT', '/recipe/totp/device', { body: { userId: 'u', existingDeviceName: 'a', newDeviceName: '' } }),
        'newDeviceName cannot be empty',
      ],
    ] as const;
    for (const [reply, message] of cases)
      expect({ statusCode: reply.statusCode, body: reply.body }).toEqual({ statusCode: 400, body: `${message}\n` });
    expect(await devices()).toEqual([]);
  });
});

describe('user-id mapping over data already written (contract M-9 item 13)', () => {
  const t = useTestApp();
  beforeEach(() => truncateAll(t.db));
  const signUp = async (email: string) =>
    (await call(t.app, 'POST', '/recipe/signup', { body: { email, password: 'a password 1' } })).json.user.id as string;
  const map = (superTokensUserId: string) =>
    call(t.app, 'POST', '/recipe/userid/map', { body: { superTokensUserId, externalUserId: `ext-${superTokensUserId}` } });

  it('refuses to map an id that already holds metadata or a TOTP device, naming the recipe', async () => {
    const withMetadata = await signUp('m@example.com');
    await call(t.app, 'PUT', '/recipe/user/metadata', { body: { userId: withMetadata, metadataUpdate: { a: 1 } } });
    expect((await map(withMetadata)).body).toBe('UserId is already in use in UserMetadata recipe\n');

    const withDevice = await signUp('d@example.com');
    await call(t.app, 'POST', '/recipe/totp/device', { body: { userId: withDevice, skew: 1, period: 30 } });
    const reply = await map(withDevice);
    expect({ statusCode: reply.statusCode, body: reply.body }).toEqual({
      statusCode: 400,
      body: 'UserId is already in use in TOTP recipe\n',
    });
    expect((await t.db.pool.query('SELECT count(*)::int AS n FROM user_id_mappings')).rows[0].n).toBe(0);
  });
});
