import { describe, expect, it } from 'vitest';
import { call, snapshot, useTestApp } from '../helper.js';

// Over-long values are named with a 400 on every route that stores them, before anything is written.
describe('length limits', () => {
  const t = useTestApp();

  const longEmail = `${'a'.repeat(250)}@example.com`;
  const longPhone = `+1${'5'.repeat(300)}`;
  const phoneRule = 'phoneNumber must be in international format with a leading + and country code, e.g. +14155552671';
  const bcryptHash = '$2a$04$' + 'a'.repeat(53);

  it.each([
    ['hash import', 'POST', '/recipe/user/passwordhash/import', { email: longEmail, passwordHash: bcryptHash }, {}, 'email'],
    ['sign-up', 'POST', '/recipe/signup', { email: longEmail, password: 'secret' }, {}, 'email'],
    ['passwordless code by email', 'POST', '/recipe/signinup/code', { email: longEmail }, {}, 'email'],
    ['third party', 'POST', '/recipe/signinup', { thirdPartyId: 'google', thirdPartyUserId: '1', email: { id: longEmail } }, {}, 'email'],
  ] as const)('%s', async (_name, method, url, body, headers, field) => {
    const before = await snapshot(t.db);
    const reply = await call(t.app, method, url, { body, headers });
    expect([reply.statusCode, reply.body]).toEqual([400, `${field} is too long. Max length is 256.\n`]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('on a user-id mapping', async () => {
    const signUp = await call(t.app, 'POST', '/recipe/signup', { body: { email: 'mapped@example.com', password: 'secret' } });
    const before = await snapshot(t.db);
    const reply = await call(t.app, 'POST', '/recipe/userid/map', {
      body: { superTokensUserId: signUp.json.user.id, externalUserId: 'é'.repeat(129) },
    });
    expect([reply.statusCode, reply.body]).toEqual([400, 'externalUserId is too long. Max length is 128.\n']);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('on the email-password and passwordless updates', async () => {
    const signUp = await call(t.app, 'POST', '/recipe/signup', { body: { email: 'short@example.com', password: 'secret' } });
    const before = await snapshot(t.db);
    const update = await call(t.app, 'PUT', '/recipe/user', { body: { recipeUserId: signUp.json.user.id, email: longEmail } });
    expect([update.statusCode, update.body]).toEqual([400, 'email is too long. Max length is 256.\n']);
    expect(await snapshot(t.db)).toEqual(before);

    const code = await call(t.app, 'POST', '/recipe/signinup/code', { body: { email: 'pl@example.com' } });
    const consumed = await call(t.app, 'POST', '/recipe/signinup/code/consume', {
      body: { preAuthSessionId: code.json.preAuthSessionId, linkCode: code.json.linkCode },
    });
    const afterConsume = await snapshot(t.db);
    const phone = await call(t.app, 'PUT', '/recipe/user', {
      body: { recipeUserId: consumed.json.user.id, phoneNumber: longPhone },
      headers: { rid: 'passwordless' },
    });
    expect([phone.statusCode, phone.body]).toEqual([400, `${phoneRule}\n`]);
    expect(await snapshot(t.db)).toEqual(afterConsume);
  });

  // No international number is that long: the phone rule refuses it before its length matters.
  it('on a passwordless code by phone', async () => {
    const before = await snapshot(t.db);
    const reply = await call(t.app, 'POST', '/recipe/signinup/code', { body: { phoneNumber: longPhone } });
    expect([reply.statusCode, reply.body]).toEqual([400, `${phoneRule}\n`]);
    expect(await snapshot(t.db)).toEqual(before);
  });
});
