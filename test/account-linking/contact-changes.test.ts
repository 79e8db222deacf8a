import { describe, expect, it } from 'vitest';
import { call, useTestApp } from '../helper.js';

// AL-10.2 and AL-10.3: a login method of a primary user cannot take an email or phone number another primary user
// holds; the answer names the reason the SDK compares, and nothing changes.
describe('contact changes of linked login methods', () => {
  const t = useTestApp({}, { truncateEach: true });

  const signUp = async (email: string) =>
    (await call(t.app, 'POST', '/recipe/signup', { body: { email, password: 'correct horse 1' } })).json.user.id as string;
  const signInUp = (thirdPartyUserId: string, email: string, cdiVersion = '5.4', isVerified = false) =>
    call(t.app, 'POST', '/recipe/signinup', {
      body: { thirdPartyId: 'google', thirdPartyUserId, email: { id: email, isVerified } },
      headers: { 'cdi-version': cdiVersion },
    });
  const makePrimary = (recipeUserId: string) => call(t.app, 'POST', '/recipe/accountlinking/user/primary', { body: { recipeUserId } });
  const emailOf = async (userId: string) =>
    (await t.db.pool.query('SELECT email FROM users WHERE user_id = $1', [userId])).rows[0]?.email as string | undefined;
  const reservations = async () =>
    (await t.db.pool.query(`SELECT info_value, group_id FROM primary_account_infos WHERE info_type = 'email' ORDER BY 1`)).rows;

  it('refuses a third-party sign-in-up that would move a primary user onto another primary user’s email', async () => {
    const alice = await signUp('alice@example.com');
    expect((await makePrimary(alice)).json.status).toBe('OK');
    const google = (await signInUp('g-1', 'bob@example.com')).json.user.id as string;
    expect((await makePrimary(google)).json.status).toBe('OK');
    const before = await reservations();

    const reply = await signInUp('g-1', 'alice@example.com', '5.4', true);
    expect(reply.statusCode).toBe(200);
    expect(reply.json).toEqual({ status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR', reason: 'Email already associated with another primary user.' });
    expect(await emailOf(google)).toBe('bob@example.com');
    expect(await reservations()).toEqual(before);
    expect((await t.db.pool.query('SELECT count(*)::int AS n FROM email_verifications')).rows[0].n).toBe(0);

    // A standalone third-party login method is never refused.
    const standalone = (await signInUp('g-2', 'carol@example.com')).json.user.id as string;
    expect((await signInUp('g-2', 'alice@example.com')).json.status).toBe('OK');
    expect(await emailOf(standalone)).toBe('alice@example.com');
  });

  it('refuses PUT /recipe/user of a primary user’s email onto another primary user’s email', async () => {
    // Alice's email is held by her third-party login method, so only the primary-level rule refuses it.
    const alice = (await signInUp('g-alice', 'alice@example.com')).json.user.id as string;
    const bob = await signUp('bob@example.com');
    await makePrimary(alice);
    await makePrimary(bob);

    const reply = await call(t.app, 'PUT', '/recipe/user', { body: { recipeUserId: bob, email: 'alice@example.com' } });
    expect(reply.json).toEqual({
      status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR',
      reason: 'New email is associated with another primary user ID',
    });
    expect(await emailOf(bob)).toBe('bob@example.com');
    expect(await reservations()).toEqual([
      { info_value: 'alice@example.com', group_id: alice },
      { info_value: 'bob@example.com', group_id: bob },
    ]);

    // A free email moves the reservation with it.
    expect((await call(t.app, 'PUT', '/recipe/user', { body: { recipeUserId: bob, email: 'robert@example.com' } })).json).toEqual({
      status: 'OK',
    });
    expect(await reservations()).toEqual([
      { info_value: 'alice@example.com', group_id: alice },
      { info_value: 'robert@example.com', group_id: bob },
    ]);
  });

  it('refuses a passwordless PUT /recipe/user of a linked login method onto another primary user’s phone number or email', async () => {
    const importUser = async (externalUserId: string, email: string, phoneNumber: string) => {
      const reply = await call(t.app, 'POST', '/bulk-import/import', {
        body: {
          externalUserId,
          loginMethods: [
            { recipeId: 'emailpassword', email, plainTextPassword: 'correct horse 1' },
            { recipeId: 'passwordless', phoneNumber },
          ],
        },
      });
      return reply.json.user.loginMethods.find((method: { recipeId: string }) => method.recipeId === 'passwordless').recipeUserId as string;
    };
    await importUser('alice', 'alice@example.com', '+14155550101');
    const bobPhone = await importUser('bob', 'bob@example.com', '+14155550202');
    const put = (recipeUserId: string, fields: Record<string, unknown>) =>
      call(t.app, 'PUT', '/recipe/user', { body: { recipeUserId, ...fields }, headers: { rid: 'passwordless' } });
    const phoneOf = async (userId: string) =>
      (await t.db.pool.query('SELECT email, phone_number FROM users WHERE user_id = $1', [userId])).rows[0];
    const allReservations = async () =>
      (await t.db.pool.query('SELECT info_type, info_value, group_id FROM primary_account_infos ORDER BY 1, 2')).rows;
    const before = await allReservations();

    const phoneHeld = {
      status: 'PHONE_NUMBER_CHANGE_NOT_ALLOWED_ERROR',
      reason: 'New phone number is associated with another primary user ID',
    };
    const emailHeld = { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR', reason: 'New email is associated with another primary user ID' };
    const phone = await put(bobPhone, { phoneNumber: '+1 415 555 0101' });
    expect([phone.statusCode, phone.json]).toEqual([200, phoneHeld]);
    // Alice's email is held by her email-password login method only, so only the primary-level rule refuses it.
    const email = await put(bobPhone, { email: 'alice@example.com' });
    expect([email.statusCode, email.json]).toEqual([200, emailHeld]);
    // Both: the email is named first.
    expect((await put(bobPhone, { email: 'alice@example.com', phoneNumber: '+14155550101' })).json).toEqual(emailHeld);
    expect(await phoneOf(bobPhone)).toEqual({ email: null, phone_number: '+14155550202' });
    expect(await allReservations()).toEqual(before);

    // A free phone number moves the reservation with it.
    expect((await put(bobPhone, { phoneNumber: '+14155550303' })).json).toEqual({ status: 'OK' });
    expect((await allReservations()).filter((row) => row.info_type === 'phone').map((row) => row.info_value)).toEqual([
      '+14155550101',
      '+14155550303',
    ]);

    // A standalone passwordless login method: the recipe's own duplicate only; another primary user's email is allowed.
    const carol = await call(t.app, 'POST', '/bulk-import/import', {
      body: { loginMethods: [{ recipeId: 'passwordless', phoneNumber: '+14155550404' }] },
    });
    const carolId = carol.json.user.id as string;
    expect((await put(carolId, { phoneNumber: '+14155550101' })).json).toEqual({ status: 'PHONE_NUMBER_ALREADY_EXISTS_ERROR' });
    expect((await put(carolId, { email: 'alice@example.com' })).json).toEqual({ status: 'OK' });
  });

  const signInByPhone = async (phoneNumber: string) => {
    const code = await call(t.app, 'POST', '/recipe/signinup/code', { body: { phoneNumber } });
    const { preAuthSessionId, linkCode } = code.json;
    return (await call(t.app, 'POST', '/recipe/signinup/code/consume', { body: { preAuthSessionId, linkCode } })).json.user.id as string;
  };
  const updatePasswordless = (recipeUserId: string, changes: { email?: string; phoneNumber?: string }) =>
    call(t.app, 'PUT', '/recipe/user', { body: { recipeUserId, ...changes }, headers: { rid: 'passwordless' } });
  const contactsOf = async (userId: string) =>
    (await t.db.pool.query('SELECT email, phone_number FROM users WHERE user_id = $1', [userId])).rows[0];
  const allReservations = async () =>
    (await t.db.pool.query('SELECT info_type, info_value, group_id FROM primary_account_infos ORDER BY 1, 2')).rows;

  it('refuses PUT /recipe/user of a primary user’s phone number or email onto another primary user’s, email first', async () => {
    const alice = await signUp('alice@example.com');
    const alicePhone = await signInByPhone('+14155552671');
    await makePrimary(alice);
    expect(
      (await call(t.app, 'POST', '/recipe/accountlinking/user/link', { body: { recipeUserId: alicePhone, primaryUserId: alice } })).json
        .status,
    ).toBe('OK');
    const bob = await signInByPhone('+14155552672');
    await makePrimary(bob);
    const before = await allReservations();

    const phone = await updatePasswordless(bob, { phoneNumber: '+1 415 555 2671' });
    expect(phone.json).toEqual({
      status: 'PHONE_NUMBER_CHANGE_NOT_ALLOWED_ERROR',
      reason: 'New phone number is associated with another primary user ID',
    });
    const both = await updatePasswordless(bob, { email: 'alice@example.com', phoneNumber: '+14155552671' });
    expect(both.json).toEqual({ status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR', reason: 'New email is associated with another primary user ID' });
    expect(await contactsOf(bob)).toEqual({ email: null, phone_number: '+14155552672' });
    expect(await allReservations()).toEqual(before);

    // A free value moves the reservation with it.
    expect((await updatePasswordless(bob, { phoneNumber: '+14155552673' })).json).toEqual({ status: 'OK' });
    expect((await allReservations()).filter((row) => row.group_id === bob)).toEqual([
      { info_type: 'phone', info_value: '+14155552673', group_id: bob },
    ]);
  });

  it('answers a recipe-level duplicate on a primary user’s login method as a change not allowed, and on a standalone one as taken', async () => {
    const taken = await signUp('taken@example.com');
    const takenPhone = await signInByPhone('+14155550001');
    const primary = await signUp('p@example.com');
    const primaryPhone = await signInByPhone('+14155550002');
    await makePrimary(primary);
    await makePrimary(primaryPhone);
    const standalone = await signInByPhone('+14155550003');

    expect((await call(t.app, 'PUT', '/recipe/user', { body: { recipeUserId: primary, email: 'taken@example.com' } })).json).toEqual({
      status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR',
      reason: 'New email is associated with another primary user ID',
    });
    expect((await updatePasswordless(primaryPhone, { phoneNumber: '+14155550001' })).json).toEqual({
      status: 'PHONE_NUMBER_CHANGE_NOT_ALLOWED_ERROR',
      reason: 'New phone number is associated with another primary user ID',
    });
    expect((await updatePasswordless(standalone, { phoneNumber: '+14155550001' })).json).toEqual({
      status: 'PHONE_NUMBER_ALREADY_EXISTS_ERROR',
    });
    // A standalone login method may take a value a primary user holds: only the recipe-level rule applies to it.
    expect((await updatePasswordless(standalone, { email: 'p@example.com' })).json).toEqual({ status: 'OK' });
    expect(await contactsOf(standalone)).toEqual({ email: 'p@example.com', phone_number: '+14155550003' });
    expect(await contactsOf(takenPhone)).toEqual({ email: null, phone_number: '+14155550001' });
    expect(await emailOf(taken)).toBe('taken@example.com');
  });

  it('applies isVerified on the cdi 2.7 path and ignores it from 2.8 to 3.x', async () => {
    await signInUp('g-27', 'old@example.com', '2.7', true);
    await signInUp('g-30', 'newer@example.com', '3.0', true);
    const { rows } = await t.db.pool.query('SELECT email FROM email_verifications ORDER BY 1');
    expect(rows).toEqual([{ email: 'old@example.com' }]);
  });
});
