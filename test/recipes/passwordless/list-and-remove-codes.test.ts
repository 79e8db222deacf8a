import { describe, expect, it } from 'vitest';
import { call, countRows, useTestApp } from '../../helper.js';
import { createCode } from './flow-helpers.js';

describe('GET /recipe/signinup/codes and the removal routes', () => {
  const t = useTestApp({}, { truncateEach: true });

  const list = (query: Record<string, string>) => call(t.app, 'GET', '/recipe/signinup/codes', { query });
  const codeIds = async () =>
    (await t.db.pool.query('SELECT code_id FROM passwordless_codes ORDER BY created_at')).rows.map((r) => r.code_id);

  it('lists a device with its codes, oldest first, by any of its four keys', async () => {
    const first = await createCode(t.app, { email: 'a@example.com' });
    t.clock.advance(1000);
    const second = await createCode(t.app, { deviceId: first.deviceId });
    await createCode(t.app, { email: 'b@example.com' });
    const expected = {
      status: 'OK',
      devices: [
        {
          preAuthSessionId: first.preAuthSessionId,
          failedCodeInputAttemptCount: 0,
          email: 'a@example.com',
          codes: [
            { codeId: first.codeId, timeCreated: first.timeCreated, codeLifetime: 900_000 },
            { codeId: second.codeId, timeCreated: second.timeCreated, codeLifetime: 900_000 },
          ],
        },
      ],
    };
    for (const query of [{ email: ' A@Example.com' }, { deviceId: first.deviceId }, { preAuthSessionId: first.preAuthSessionId }] as Record<
      string,
      string
    >[]) {
      const reply = await list(query);
      expect([reply.statusCode, reply.json]).toEqual([200, expected]);
    }
  });

  it('lists every device of a phone number, with failures counted, and keeps expired codes listed', async () => {
    const first = await createCode(t.app, { phoneNumber: '+14155552671' });
    await call(t.app, 'POST', '/recipe/signinup/code/check', {
      body: { preAuthSessionId: first.preAuthSessionId, deviceId: first.deviceId, userInputCode: 'wrong' },
    });
    t.clock.advance(900_001);
    const second = await createCode(t.app, { phoneNumber: '+1 415 555 2671' });
    const reply = await list({ phoneNumber: '+1-415-555-2671' });
    expect(reply.json).toEqual({
      status: 'OK',
      devices: [
        {
          preAuthSessionId: first.preAuthSessionId,
          failedCodeInputAttemptCount: 1,
          phoneNumber: '+14155552671',
          codes: [{ codeId: first.codeId, timeCreated: first.timeCreated, codeLifetime: 900_000 }],
        },
        {
          preAuthSessionId: second.preAuthSessionId,
          failedCodeInputAttemptCount: 0,
          phoneNumber: '+14155552671',
          codes: [{ codeId: second.codeId, timeCreated: second.timeCreated, codeLifetime: 900_000 }],
        },
      ],
    });
  });

  it('answers an empty list for unknown keys, and matches preAuthSessionId exactly', async () => {
    const code = await createCode(t.app, { email: 'a@example.com' });
    for (const query of [
      { email: 'nobody@example.com' },
      { phoneNumber: '+14155552671' },
      { preAuthSessionId: `${code.preAuthSessionId}=` },
      { deviceId: 'AAAA' },
    ] as Record<string, string>[]) {
      expect((await list(query)).json).toEqual({ status: 'OK', devices: [] });
    }
  });

  it('removes one code by codeId, and the device with its last code', async () => {
    const first = await createCode(t.app, { email: 'a@example.com' });
    const second = await createCode(t.app, { deviceId: first.deviceId });
    const remove = (body: object, headers = {}) => call(t.app, 'POST', '/recipe/signinup/code/remove', { body, headers });
    expect((await remove({ codeId: first.codeId })).json).toEqual({ status: 'OK' });
    expect([await countRows(t.db, 'passwordless_devices'), await codeIds()]).toEqual([1, [second.codeId]]);
    // Before cdi 5.0 only codeId counts; preAuthSessionId is ignored.
    expect((await remove({ codeId: second.codeId, preAuthSessionId: 7 }, { 'cdi-version': '4.0' })).json).toEqual({ status: 'OK' });
    expect([await countRows(t.db, 'passwordless_devices'), await codeIds()]).toEqual([0, []]);
    expect((await remove({ codeId: second.codeId })).json).toEqual({ status: 'OK' });
  });

  it('removes a device and all its codes by preAuthSessionId', async () => {
    const first = await createCode(t.app, { email: 'a@example.com' });
    await createCode(t.app, { deviceId: first.deviceId });
    const keep = await createCode(t.app, { email: 'a@example.com' });
    const reply = await call(t.app, 'POST', '/recipe/signinup/code/remove', { body: { preAuthSessionId: first.preAuthSessionId } });
    expect(reply.json).toEqual({ status: 'OK' });
    expect(await codeIds()).toEqual([keep.codeId]);
  });

  it('removes every device of a normalised email or phone number', async () => {
    await createCode(t.app, { email: 'a@example.com' });
    await createCode(t.app, { email: 'a@example.com' });
    await createCode(t.app, { phoneNumber: '+14155552671' });
    const keep = await createCode(t.app, { email: 'b@example.com' });
    const remove = (body: object) => call(t.app, 'POST', '/recipe/signinup/codes/remove', { body });
    expect((await remove({ email: ' A@EXAMPLE.com ' })).json).toEqual({ status: 'OK' });
    expect((await remove({ phoneNumber: '+1 (415) 555-2671' })).json).toEqual({ status: 'OK' });
    expect(await codeIds()).toEqual([keep.codeId]);
    expect((await remove({ email: 'nobody@example.com' })).json).toEqual({ status: 'OK' });
  });
});
