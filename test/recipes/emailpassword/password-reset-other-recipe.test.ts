import { describe, expect, it } from 'vitest';
import { call, countRows, useTestApp } from '../../helper.js';

// A user who signed up with a provider adds a password: the reference issues the token for any login method when
// the email is given, and the SDK creates and links the email-password login method after the consume.
describe('password reset tokens for a login method of another recipe', () => {
  const t = useTestApp({}, { truncateEach: true });

  const google = async (email = 'gia@example.com') => {
    const reply = await call(t.app, 'POST', '/recipe/signinup', {
      body: { thirdPartyId: 'google', thirdPartyUserId: 'g-1', email: { id: email, isVerified: true } },
    });
    expect(reply.json.status).toBe('OK');
    return reply.json.user.id as string;
  };
  const issue = (userId: string, email?: string, cdi = '5.4') =>
    call(t.app, 'POST', '/public/recipe/user/password/reset/token', {
      body: { userId, ...(email !== undefined && { email }) },
      headers: { 'cdi-version': cdi },
    });
  const consume = (token: string) => call(t.app, 'POST', '/recipe/user/password/reset/token/consume', { body: { token } });

  it('issues a token for a third-party user, and the SDK’s follow-up calls add a linked password', async () => {
    const gia = await google();
    expect((await call(t.app, 'POST', '/recipe/accountlinking/user/primary', { body: { recipeUserId: gia } })).json.status).toBe('OK');
    const issued = await issue(gia, 'Gia@Example.com');
    expect(issued.json).toEqual({ status: 'OK', token: expect.stringMatching(/^[A-Za-z0-9_-]{64}$/) });
    expect((await t.db.pool.query('SELECT user_id, email FROM emailpassword_reset_tokens')).rows).toEqual([
      { user_id: gia, email: 'gia@example.com' },
    ]);

    expect((await consume(issued.json.token)).json).toEqual({ status: 'OK', userId: gia, email: 'gia@example.com' });
    expect((await consume(issued.json.token)).json).toEqual({ status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' });
    expect(await countRows(t.db, 'emailpassword_reset_tokens')).toBe(0);

    // What supertokens-node's passwordResetPOST does next: a new email-password login method, linked by the rules.
    const signUp = await call(t.app, 'POST', '/recipe/signup', { body: { email: 'gia@example.com', password: 'new password 1' } });
    const passwordId = signUp.json.user.id as string;
    const link = await call(t.app, 'POST', '/recipe/accountlinking/user/link', { body: { recipeUserId: passwordId, primaryUserId: gia } });
    expect([link.json.status, link.json.accountsAlreadyLinked]).toEqual(['OK', false]);
    const signIn = await call(t.app, 'POST', '/recipe/signin', { body: { email: 'gia@example.com', password: 'new password 1' } });
    expect([signIn.json.status, signIn.json.user.id, signIn.json.recipeUserId]).toEqual(['OK', gia, passwordId]);
  });

  it('answers UNKNOWN_USER_ID_ERROR without an email (cdi < 4.0) or for an unknown id, and stores nothing', async () => {
    const gia = await google();
    expect((await issue(gia, undefined, '3.0')).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect((await issue('no-such-user', 'gia@example.com')).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect(await countRows(t.db, 'emailpassword_reset_tokens')).toBe(0);
  });

  it('refuses a bad email with 400 naming the field, and stores nothing', async () => {
    const gia = await google();
    const reply = await issue(gia, 'not an email');
    expect([reply.statusCode, reply.body]).toEqual([400, expect.stringMatching(/^email is not a valid email address: .+\n$/)]);
    expect(await countRows(t.db, 'emailpassword_reset_tokens')).toBe(0);
  });

  it('ends the token when the provider reports another email, and refuses the one-step reset for it', async () => {
    const gia = await google();
    const before = (await issue(gia, 'gia@example.com')).json.token as string;
    await google('gia@new.example.com');
    expect((await consume(before)).json).toEqual({ status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' });

    const oneStep = (await issue(gia, 'gia@example.com')).json.token as string;
    const reply = await call(t.app, 'POST', '/recipe/user/password/reset', {
      body: { method: 'token', token: oneStep, newPassword: 'x1' },
    });
    expect(reply.json).toEqual({ status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' });
    expect((await call(t.app, 'POST', '/recipe/signin', { body: { email: 'gia@example.com', password: 'x1' } })).json).toEqual({
      status: 'WRONG_CREDENTIALS_ERROR',
    });
  });
});
