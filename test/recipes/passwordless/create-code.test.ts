import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, snapshot, useTestApp } from '../../helper.js';
import { createCode, uuidPattern } from './flow-helpers.js';

describe('POST /recipe/signinup/code', () => {
  const t = useTestApp({ passwordless_code_lifetime: 60_000 }, { truncateEach: true });

  const devices = async () => (await t.db.pool.query('SELECT * FROM passwordless_devices ORDER BY created_at')).rows;
  const codes = async () => (await t.db.pool.query('SELECT * FROM passwordless_codes ORDER BY created_at, code_id')).rows;

  it('creates a device and its first code for a normalised email, storing only hashes and the salt', async () => {
    const reply = await call(t.app, 'POST', '/recipe/signinup/code', { body: { email: '  Jane.Doe@Example.COM ' } });
    expect(reply.statusCode).toBe(200);
    const body = reply.json;
    expect(body).toEqual({
      status: 'OK',
      preAuthSessionId: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      codeId: expect.stringMatching(uuidPattern),
      deviceId: expect.stringMatching(/^[A-Za-z0-9+/]{43}=$/),
      userInputCode: expect.stringMatching(/^[0-9]{6}$/),
      linkCode: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      timeCreated: t.clock.nowMs,
      codeLifetime: 60_000,
    });

    const deviceIdBytes = Buffer.from(body.deviceId, 'base64');
    expect(body.preAuthSessionId).toBe(crypto.createHash('sha256').update(deviceIdBytes).digest('base64url'));
    const [device] = await devices();
    expect(device).toEqual({
      tenant_id: 'public',
      device_id_hash: body.preAuthSessionId,
      email: 'jane.doe@example.com',
      phone_number: null,
      link_code_salt: expect.stringMatching(/^[A-Za-z0-9+/]{43}=$/),
      failed_attempts: 0,
      created_at: t.clock.nowMs,
    });
    const salt = Buffer.from(device.link_code_salt, 'base64');
    const link = crypto
      .createHmac('sha256', Buffer.concat([deviceIdBytes, salt]))
      .update(body.userInputCode)
      .digest();
    expect(link.toString('base64url')).toBe(body.linkCode);
    expect(await codes()).toEqual([
      {
        tenant_id: 'public',
        code_id: body.codeId,
        device_id_hash: body.preAuthSessionId,
        link_code_hash: crypto.createHash('sha256').update(link).digest('base64url') + '=',
        created_at: t.clock.nowMs,
      },
    ]);
    const stored = JSON.stringify(await snapshot(t.db));
    for (const secret of [body.deviceId, body.linkCode, deviceIdBytes.toString('base64url')]) expect(stored).not.toContain(secret);
  });

  it.each([
    ['+1 (415) 555-2671', '+14155552671'],
    ['+44-207 183 8751', '+442071838751'],
    [' +1 415 555 2671 ', '+14155552671'],
  ])('normalises the phone number %s to %s', async (given, stored) => {
    await createCode(t.app, { phoneNumber: given });
    expect((await devices()).map((d) => [d.email, d.phone_number])).toEqual([[null, stored]]);
  });

  it('takes a caller-chosen userInputCode of any non-empty text', async () => {
    const body = await createCode(t.app, { email: 'a@example.com', userInputCode: 'ünïcödé code 🙂' });
    expect(body.userInputCode).toBe('ünïcödé code 🙂');
    const reply = await call(t.app, 'POST', '/recipe/signinup/code/check', {
      body: { preAuthSessionId: body.preAuthSessionId, deviceId: body.deviceId, userInputCode: 'ünïcödé code 🙂' },
    });
    expect(reply.json.status).toBe('OK');
  });

  it('creates a new device for every request, even for the same email', async () => {
    const first = await createCode(t.app, { email: 'a@example.com' });
    const second = await createCode(t.app, { email: 'a@example.com' });
    expect(first.preAuthSessionId).not.toBe(second.preAuthSessionId);
    expect(await devices()).toHaveLength(2);
  });

  it('resends: adds a code to the device, and the earlier code stays valid', async () => {
    const first = await createCode(t.app, { email: 'a@example.com' });
    t.clock.advance(1000);
    const second = await createCode(t.app, { deviceId: first.deviceId });
    expect(second).toEqual({
      ...second,
      preAuthSessionId: first.preAuthSessionId,
      deviceId: first.deviceId,
      timeCreated: first.timeCreated + 1000,
    });
    expect(second.codeId).not.toBe(first.codeId);
    expect(await devices()).toHaveLength(1);
    expect((await codes()).map((c) => c.code_id)).toEqual([first.codeId, second.codeId]);
    const check = await call(t.app, 'POST', '/recipe/signinup/code/check', {
      body: { preAuthSessionId: first.preAuthSessionId, linkCode: first.linkCode },
    });
    expect(check.json.status).toBe('OK');
  });

  it('accepts a deviceId without its padding', async () => {
    const first = await createCode(t.app, { email: 'a@example.com' });
    const second = await createCode(t.app, { deviceId: first.deviceId.replace(/=+$/, '') });
    expect(second.preAuthSessionId).toBe(first.preAuthSessionId);
  });

  it('answers USER_INPUT_CODE_ALREADY_USED_ERROR when a resend repeats a chosen code, writing nothing', async () => {
    const first = await createCode(t.app, { email: 'a@example.com', userInputCode: '424242' });
    const before = await snapshot(t.db);
    const reply = await call(t.app, 'POST', '/recipe/signinup/code', { body: { deviceId: first.deviceId, userInputCode: '424242' } });
    expect([reply.statusCode, reply.json]).toEqual([200, { status: 'USER_INPUT_CODE_ALREADY_USED_ERROR' }]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('lets another device use the same chosen code', async () => {
    await createCode(t.app, { email: 'a@example.com', userInputCode: '424242' });
    await createCode(t.app, { email: 'a@example.com', userInputCode: '424242' });
    expect(await codes()).toHaveLength(2);
  });

  it('answers RESTART_FLOW_ERROR for a well-formed deviceId that has no device', async () => {
    const reply = await call(t.app, 'POST', '/recipe/signinup/code', { body: { deviceId: crypto.randomBytes(32).toString('base64') } });
    expect([reply.statusCode, reply.json]).toEqual([200, { status: 'RESTART_FLOW_ERROR' }]);
    expect(await devices()).toEqual([]);
  });

  it('does not look at users: a code is created for an email that already has a user', async () => {
    const code = await createCode(t.app, { email: 'a@example.com' });
    await call(t.app, 'POST', '/recipe/signinup/code/consume', {
      body: { preAuthSessionId: code.preAuthSessionId, linkCode: code.linkCode },
    });
    const again = await call(t.app, 'POST', '/recipe/signinup/code', { body: { email: 'a@example.com' } });
    expect(again.json.status).toBe('OK');
  });

  it('accepts the public tenant and app prefixes, and any content type', async () => {
    for (const url of ['/public/recipe/signinup/code', '/appid-public/public/recipe/signinup/code', '/recipe/signinup/code/']) {
      const reply = await call(t.app, 'POST', url, { body: { email: 'a@example.com' } });
      expect([url, reply.statusCode, reply.json.status]).toEqual([url, 200, 'OK']);
    }
    const reply = await t.app.inject({
      method: 'POST',
      url: '/recipe/signinup/code',
      payload: '{"email":"b@example.com"}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(reply.statusCode).toBe(200);
    expect(reply.body.endsWith('}\n')).toBe(true);
  });
});
