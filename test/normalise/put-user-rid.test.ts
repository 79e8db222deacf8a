import { beforeAll, describe, expect, it } from 'vitest';
import { call, snapshot, useTestApp } from '../helper.js';
import { consumeWithLink, createCode } from '../recipes/passwordless/flow-helpers.js';

const ridRequired = (reason: string) => `Header 'rid: passwordless' is required: ${reason}\n`;

// PUT /recipe/user without `rid: passwordless` is the email-password update; a body or a user that only makes
// sense for passwordless gets a 400 naming the header instead of "unknown user" or "provide email or password".
describe('PUT /recipe/user without rid: passwordless', () => {
  let passwordlessId: string;
  let emailPasswordId: string;
  let thirdPartyId: string;
  const t = useTestApp();
  beforeAll(async () => {
    passwordlessId = (await consumeWithLink(t.app, await createCode(t.app, { email: 'pl@example.com' }))).json.user.id;
    emailPasswordId = (await call(t.app, 'POST', '/recipe/signup', { body: { email: 'ep@example.com', password: 'a password' } })).json.user
      .id;
    const thirdParty = await call(t.app, 'POST', '/recipe/signinup', {
      body: { thirdPartyId: 'google', thirdPartyUserId: 'g-1', email: { id: 'tp@example.com' } },
    });
    thirdPartyId = thirdParty.json.user.id;
  });

  const cases: { description: string; headers: Record<string, string>; body: () => Record<string, unknown>; reason: string }[] = [
    {
      description: 'a phone number, no rid',
      headers: {},
      body: () => ({ recipeUserId: passwordlessId, phoneNumber: '+14155559999' }),
      reason: 'phoneNumber is stored only for passwordless users',
    },
    {
      description: 'a phone number of an email-password user',
      headers: {},
      body: () => ({ recipeUserId: emailPasswordId, phoneNumber: '+14155559999' }),
      reason: 'phoneNumber is stored only for passwordless users',
    },
    {
      description: 'a phone number without email or password',
      headers: {},
      body: () => ({ userId: passwordlessId, phoneNumber: '14155559999' }),
      reason: 'phoneNumber is stored only for passwordless users',
    },
    {
      description: 'phoneNumber: null',
      headers: {},
      body: () => ({ recipeUserId: passwordlessId, phoneNumber: null }),
      reason: 'phoneNumber is stored only for passwordless users',
    },
    {
      description: 'a passwordless user, no rid',
      headers: {},
      body: () => ({ recipeUserId: passwordlessId, email: 'new@example.com' }),
      reason: 'the user is a passwordless user',
    },
    {
      description: 'a passwordless user by userId',
      headers: {},
      body: () => ({ userId: passwordlessId, password: 'x' }),
      reason: 'the user is a passwordless user',
    },
    {
      description: 'rid with another case',
      headers: { rid: 'Passwordless' },
      body: () => ({ recipeUserId: passwordlessId, phoneNumber: '+14155559999' }),
      reason: 'phoneNumber is stored only for passwordless users',
    },
    {
      description: 'rid emailpassword',
      headers: { rid: 'emailpassword' },
      body: () => ({ recipeUserId: passwordlessId, email: 'new@example.com' }),
      reason: 'the user is a passwordless user',
    },
  ];

  it.each(cases)('400 for $description, writing nothing', async ({ headers, body, reason }) => {
    const before = await snapshot(t.db);
    const reply = await call(t.app, 'PUT', '/recipe/user', { body: body(), headers });
    expect([reply.statusCode, reply.body]).toEqual([400, ridRequired(reason)]);
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('keeps the contract answers for email-password, third-party and unknown users', async () => {
    const unknown = await call(t.app, 'PUT', '/recipe/user', { body: { recipeUserId: 'nope', email: 'x@example.com' } });
    expect([unknown.statusCode, unknown.json]).toEqual([200, { status: 'UNKNOWN_USER_ID_ERROR' }]);
    const thirdParty = await call(t.app, 'PUT', '/recipe/user', { body: { recipeUserId: thirdPartyId, email: 'x@example.com' } });
    expect([thirdParty.statusCode, thirdParty.json]).toEqual([200, { status: 'UNKNOWN_USER_ID_ERROR' }]);
    const neither = await call(t.app, 'PUT', '/recipe/user', { body: { recipeUserId: emailPasswordId } });
    expect([neither.statusCode, neither.body]).toEqual([400, 'You have to provide either email or password.\n']);
    const ok = await call(t.app, 'PUT', '/recipe/user', { body: { recipeUserId: emailPasswordId, email: 'EP2@example.com' } });
    expect([ok.statusCode, ok.json]).toEqual([200, { status: 'OK' }]);
    const { rows } = await t.db.pool.query('SELECT email FROM users WHERE user_id = $1', [emailPasswordId]);
    expect(rows).toEqual([{ email: 'ep2@example.com' }]);
  });

  it('with the header, updates the passwordless user', async () => {
    const reply = await call(t.app, 'PUT', '/recipe/user', {
      body: { recipeUserId: passwordlessId, phoneNumber: '+1 415 555 9999' },
      headers: { rid: 'passwordless' },
    });
    expect([reply.statusCode, reply.json]).toEqual([200, { status: 'OK' }]);
    const { rows } = await t.db.pool.query('SELECT email, phone_number FROM users WHERE user_id = $1', [passwordlessId]);
    expect(rows).toEqual([{ email: 'pl@example.com', phone_number: '+14155559999' }]);
  });
});
