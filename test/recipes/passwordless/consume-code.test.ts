import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, countRows, createTestApp, snapshot, useTestApp } from '../../helper.js';
import { expectedWireUser } from '../../wire-user.js';
import { consumeWithCode, consumeWithLink, createCode, uuidPattern, wrongCode } from './flow-helpers.js';

describe('POST /recipe/signinup/code/consume', () => {
  const t = useTestApp({}, { truncateEach: true });

  const deviceHashes = async () =>
    (await t.db.pool.query('SELECT device_id_hash FROM passwordless_devices ORDER BY 1')).rows.map((r) => r.device_id_hash);
  const failedAttempts = async (preAuthSessionId: string) =>
    (await t.db.pool.query('SELECT failed_attempts FROM passwordless_devices WHERE device_id_hash = $1', [preAuthSessionId])).rows[0]
      ?.failed_attempts;

  const emailUser = (id: string, email: string, timeJoined: number, verified = true) =>
    expectedWireUser({ recipeId: 'passwordless', recipeUserId: id, timeJoined, verified, email });

  it('signs up with the link code: creates the user, verifies the email, deletes the device', async () => {
    const code = await createCode(t.app, { email: 'New@Example.com' });
    t.clock.advance(5000);
    const reply = await consumeWithLink(t.app, code);
    expect(reply.statusCode).toBe(200);
    const id = reply.json.user.id;
    expect(id).toMatch(uuidPattern);
    expect(reply.json).toEqual({
      status: 'OK',
      createdNewUser: true,
      user: emailUser(id, 'new@example.com', t.clock.nowMs),
      recipeUserId: id,
      consumedDevice: { preAuthSessionId: code.preAuthSessionId, failedCodeInputAttemptCount: 0, email: 'new@example.com' },
    });
    expect((await t.db.pool.query('SELECT user_id, recipe_id, email, phone_number, time_joined FROM users')).rows).toEqual([
      { user_id: id, recipe_id: 'passwordless', email: 'new@example.com', phone_number: null, time_joined: t.clock.nowMs },
    ]);
    expect((await t.db.pool.query('SELECT * FROM email_verifications')).rows).toEqual([{ user_id: id, email: 'new@example.com' }]);
    expect(await deviceHashes()).toEqual([]);
    expect(await countRows(t.db, 'passwordless_codes')).toBe(0);
  });

  it('signs in an existing user with the deviceId and userInputCode form', async () => {
    const first = await consumeWithLink(t.app, await createCode(t.app, { email: 'a@example.com' }));
    t.clock.advance(60_000);
    const code = await createCode(t.app, { email: 'A@example.com' });
    const reply = await consumeWithCode(t.app, code, code.userInputCode);
    expect(reply.json).toEqual({
      ...first.json,
      createdNewUser: false,
      consumedDevice: { ...first.json.consumedDevice, preAuthSessionId: code.preAuthSessionId },
    });
    expect(await countRows(t.db, 'users')).toBe(1);
  });

  it('signs up a phone user: no email, verified, nothing added to email verification', async () => {
    const code = await createCode(t.app, { phoneNumber: '+1 415 555 2671' });
    const reply = await consumeWithCode(t.app, code, code.userInputCode);
    const id = reply.json.user.id;
    expect(reply.json).toEqual({
      status: 'OK',
      createdNewUser: true,
      user: {
        ...emailUser(id, 'x', t.clock.nowMs),
        emails: [],
        phoneNumbers: ['+14155552671'],
        loginMethods: [
          {
            tenantIds: ['public'],
            recipeUserId: id,
            verified: true,
            timeJoined: t.clock.nowMs,
            recipeId: 'passwordless',
            phoneNumber: '+14155552671',
          },
        ],
      },
      recipeUserId: id,
      consumedDevice: { preAuthSessionId: code.preAuthSessionId, failedCodeInputAttemptCount: 0, phoneNumber: '+14155552671' },
    });
    expect(await countRows(t.db, 'email_verifications')).toBe(0);
  });

  it('compares preAuthSessionId without its = characters', async () => {
    const code = await createCode(t.app, { email: 'a@example.com' });
    const reply = await call(t.app, 'POST', '/recipe/signinup/code/consume', {
      body: { preAuthSessionId: `${code.preAuthSessionId}=`, linkCode: `${code.linkCode}=` },
    });
    expect(reply.json.status).toBe('OK');
  });

  it('deletes every pending device of the email, and only those', async () => {
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push(await createCode(t.app, { email: 'a@example.com' }));
    const other = await createCode(t.app, { email: 'b@example.com' });
    const phone = await createCode(t.app, { phoneNumber: '+14155552671' });
    expect((await consumeWithLink(t.app, codes[1])).json.status).toBe('OK');
    expect(await deviceHashes()).toEqual([other.preAuthSessionId, phone.preAuthSessionId].sort());
    for (const code of codes) expect((await consumeWithLink(t.app, code)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
  });

  it('answers RESTART_FLOW_ERROR to a second consume of the same code', async () => {
    const code = await createCode(t.app, { email: 'a@example.com' });
    expect((await consumeWithLink(t.app, code)).json.status).toBe('OK');
    expect((await consumeWithLink(t.app, code)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect((await consumeWithCode(t.app, code, code.userInputCode)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
  });

  it('signing in by email also clears pending codes for the phone number the user has', async () => {
    const signUp = await consumeWithLink(t.app, await createCode(t.app, { email: 'a@example.com' }));
    await call(t.app, 'PUT', '/recipe/user', {
      headers: { rid: 'passwordless' },
      body: { recipeUserId: signUp.json.user.id, phoneNumber: '+14155552671' },
    });
    const phoneCode = await createCode(t.app, { phoneNumber: '+14155552671' });
    const otherPhone = await createCode(t.app, { phoneNumber: '+14155550000' });
    const reply = await consumeWithLink(t.app, await createCode(t.app, { email: 'a@example.com' }));
    expect(reply.json.user.phoneNumbers).toEqual(['+14155552671']);
    expect(await deviceHashes()).toEqual([otherPhone.preAuthSessionId]);
    expect((await consumeWithLink(t.app, phoneCode)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
  });

  it('counts wrong codes: INCORRECT 1..4, then the 5th deletes the device', async () => {
    const code = await createCode(t.app, { email: 'a@example.com' });
    for (let attempt = 1; attempt <= 4; attempt++) {
      const route = attempt % 2 === 0 ? 'check' : 'consume';
      const reply = await consumeWithCode(t.app, code, wrongCode(code.userInputCode), route);
      expect(reply.json).toEqual({
        status: 'INCORRECT_USER_INPUT_CODE_ERROR',
        failedCodeInputAttemptCount: attempt,
        maximumCodeInputAttempts: 5,
      });
      expect(await failedAttempts(code.preAuthSessionId)).toBe(attempt);
    }
    const fifth = await consumeWithCode(t.app, code, wrongCode(code.userInputCode));
    expect(fifth.json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect([await countRows(t.db, 'passwordless_devices'), await countRows(t.db, 'passwordless_codes')]).toEqual([0, 0]);
    expect((await consumeWithCode(t.app, code, code.userInputCode)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
  });

  it('reports failures recorded before the successful attempt', async () => {
    const code = await createCode(t.app, { email: 'a@example.com' });
    await consumeWithCode(t.app, code, wrongCode(code.userInputCode));
    await consumeWithCode(t.app, code, wrongCode(code.userInputCode));
    const reply = await consumeWithCode(t.app, code, code.userInputCode);
    expect(reply.json.consumedDevice).toEqual({
      preAuthSessionId: code.preAuthSessionId,
      failedCodeInputAttemptCount: 2,
      email: 'a@example.com',
    });
  });

  it('keeps a code valid up to and including createdAt + lifetime', async () => {
    const code = await createCode(t.app, { email: 'a@example.com' });
    t.clock.advance(900_000);
    expect((await consumeWithCode(t.app, code, code.userInputCode, 'check')).json.status).toBe('OK');
    expect((await consumeWithLink(t.app, code)).json.status).toBe('OK');
  });

  it('answers EXPIRED for a matching code past its lifetime, and counts it', async () => {
    const code = await createCode(t.app, { email: 'a@example.com' });
    t.clock.advance(900_001);
    const reply = await consumeWithCode(t.app, code, code.userInputCode);
    expect(reply.json).toEqual({ status: 'EXPIRED_USER_INPUT_CODE_ERROR', failedCodeInputAttemptCount: 1, maximumCodeInputAttempts: 5 });
    const wrong = await consumeWithCode(t.app, code, wrongCode(code.userInputCode));
    expect(wrong.json).toEqual({ status: 'INCORRECT_USER_INPUT_CODE_ERROR', failedCodeInputAttemptCount: 2, maximumCodeInputAttempts: 5 });
  });

  it('signs in with a newer code after an older one expired', async () => {
    const first = await createCode(t.app, { email: 'a@example.com' });
    t.clock.advance(800_000);
    const second = await createCode(t.app, { deviceId: first.deviceId });
    t.clock.advance(200_000);
    expect((await consumeWithCode(t.app, first, first.userInputCode, 'check')).json.status).toBe('EXPIRED_USER_INPUT_CODE_ERROR');
    expect((await consumeWithCode(t.app, second, second.userInputCode)).json.consumedDevice.failedCodeInputAttemptCount).toBe(1);
  });

  it('never counts link-code failures: unknown or expired link codes answer RESTART_FLOW_ERROR', async () => {
    const code = await createCode(t.app, { email: 'a@example.com' });
    for (let i = 0; i < 6; i++) {
      const unknown = crypto.randomBytes(32).toString('base64url');
      const reply = await call(t.app, 'POST', '/recipe/signinup/code/consume', {
        body: { preAuthSessionId: code.preAuthSessionId, linkCode: unknown },
      });
      expect(reply.json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    }
    t.clock.advance(900_001);
    expect((await consumeWithLink(t.app, code)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect(await failedAttempts(code.preAuthSessionId)).toBe(0);
    expect(await countRows(t.db, 'users')).toBe(0);
  });

  it('answers RESTART_FLOW_ERROR for a deviceId with no device, and writes nothing', async () => {
    const deviceId = crypto.randomBytes(32).toString('base64');
    const preAuthSessionId = crypto.createHash('sha256').update(Buffer.from(deviceId, 'base64')).digest('base64url');
    await createCode(t.app, { email: 'a@example.com' });
    const before = await snapshot(t.db);
    expect((await consumeWithCode(t.app, { deviceId, preAuthSessionId }, '123456')).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('outputs the external id when the user id is mapped', async () => {
    const signUp = await consumeWithLink(t.app, await createCode(t.app, { email: 'a@example.com' }));
    await t.db.pool.query('INSERT INTO user_id_mappings (user_id, external_user_id) VALUES ($1, $2)', [signUp.json.user.id, 'legacy-42']);
    const reply = await consumeWithLink(t.app, await createCode(t.app, { email: 'a@example.com' }));
    expect(reply.json.user.id).toBe('legacy-42');
    expect(reply.json.recipeUserId).toBe('legacy-42');
    expect(reply.json.user.loginMethods[0].recipeUserId).toBe('legacy-42');
  });

  it('omits consumedDevice before cdi 5.0', async () => {
    const code = await createCode(t.app, { email: 'a@example.com' });
    const reply = await call(t.app, 'POST', '/recipe/signinup/code/consume', {
      headers: { 'cdi-version': '4.0' },
      body: { preAuthSessionId: code.preAuthSessionId, linkCode: code.linkCode },
    });
    const id = reply.json.user.id;
    const { webauthn: _webauthn, ...user } = emailUser(id, 'a@example.com', t.clock.nowMs);
    expect(reply.json).toEqual({ status: 'OK', createdNewUser: true, user, recipeUserId: id });
  });

  it('uses the legacy user shape and does not verify the email before cdi 4.0', async () => {
    const code = await createCode(t.app, { email: 'a@example.com' });
    const reply = await call(t.app, 'POST', '/recipe/signinup/code/consume', {
      headers: { 'cdi-version': '3.0' },
      body: { preAuthSessionId: code.preAuthSessionId, linkCode: code.linkCode },
    });
    const id = reply.json.user.id;
    expect(reply.json).toEqual({
      status: 'OK',
      createdNewUser: true,
      user: { id, timeJoined: t.clock.nowMs, tenantIds: ['public'], email: 'a@example.com' },
    });
    expect(await countRows(t.db, 'email_verifications')).toBe(0);
    const after = await call(t.app, 'GET', '/recipe/user', { headers: { rid: 'passwordless' }, query: { userId: id } });
    expect(after.json.user.loginMethods[0].verified).toBe(false);
  });

  it('deletes the device when the limit was lowered below its failures, even for a correct code', async () => {
    const code = await createCode(t.app, { email: 'a@example.com' });
    for (let i = 0; i < 3; i++) await consumeWithCode(t.app, code, wrongCode(code.userInputCode));
    const strict = await createTestApp({ passwordless_max_code_input_attempts: 3 }, t.db);
    try {
      expect((await consumeWithLink(strict.app, code)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
      expect(await countRows(t.db, 'passwordless_devices')).toBe(0);
    } finally {
      await strict.close();
    }
  });
});

describe('POST /recipe/signinup/code/check', () => {
  const t = useTestApp({ passwordless_max_code_input_attempts: 2 }, { truncateEach: true });

  it('confirms a code without consuming it or touching users', async () => {
    const code = await createCode(t.app, { phoneNumber: '+14155552671' });
    const before = await snapshot(t.db);
    for (const reply of [
      await consumeWithCode(t.app, code, code.userInputCode, 'check'),
      await call(t.app, 'POST', '/recipe/signinup/code/check', {
        body: { preAuthSessionId: code.preAuthSessionId, linkCode: code.linkCode },
      }),
    ]) {
      expect(reply.json).toEqual({
        status: 'OK',
        consumedDevice: { preAuthSessionId: code.preAuthSessionId, failedCodeInputAttemptCount: 0, phoneNumber: '+14155552671' },
      });
    }
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('uses the configured attempt limit', async () => {
    const code = await createCode(t.app, { email: 'a@example.com' });
    expect((await consumeWithCode(t.app, code, wrongCode(code.userInputCode), 'check')).json).toEqual({
      status: 'INCORRECT_USER_INPUT_CODE_ERROR',
      failedCodeInputAttemptCount: 1,
      maximumCodeInputAttempts: 2,
    });
    expect((await consumeWithCode(t.app, code, wrongCode(code.userInputCode), 'check')).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect(await countRows(t.db, 'passwordless_devices')).toBe(0);
  });
});
