import { describe, expect, it } from 'vitest';
import { call, useTestApp } from '../../helper.js';
import { SoftAuthenticator } from './authenticator.js';
import { cdi, signIn, signUp } from './ceremony.js';

// Account linking treats a webauthn login method like an email-password one (contract-webauthn W-1).
describe('passkey users and account linking', () => {
  const t = useTestApp();
  const post = (url: string, body: unknown) => call(t.app, 'POST', url, { body, headers: cdi('5.4') });

  it('makes a passkey user primary, links an email-password user to it, and signs in as the linked user', async () => {
    const key = new SoftAuthenticator();
    const passkeyUser = (await signUp(t.app, key, 'ada@example.com')).json.recipeUserId;
    const passwordUser = (await post('/public/recipe/signup', { email: 'ada@example.com', password: 'pw-12345678' })).json.user.id;

    expect((await post('/recipe/accountlinking/user/primary', { recipeUserId: passkeyUser })).json).toMatchObject({
      status: 'OK',
      wasAlreadyAPrimaryUser: false,
    });
    expect((await post('/recipe/accountlinking/user/link', { recipeUserId: passwordUser, primaryUserId: passkeyUser })).json).toMatchObject(
      {
        status: 'OK',
        accountsAlreadyLinked: false,
      },
    );

    const signedIn = (await signIn(t.app, key)).json;
    expect(signedIn.recipeUserId).toBe(passkeyUser);
    expect(signedIn.user).toMatchObject({
      id: passkeyUser,
      isPrimaryUser: true,
      emails: ['ada@example.com'],
      webauthn: { credentialIds: [key.id] },
    });
    expect(signedIn.user.loginMethods.map((method: { recipeId: string }) => method.recipeId).sort()).toEqual(['emailpassword', 'webauthn']);

    // One webauthn login method per email and tenant, as for email-password.
    expect((await signUp(t.app, new SoftAuthenticator(), 'ADA@example.com')).json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    const bea = (await signUp(t.app, new SoftAuthenticator(), 'bea@example.com')).json.recipeUserId;
    const change = await call(t.app, 'PUT', '/public/recipe/webauthn/user/email', {
      body: { recipeUserId: bea, email: 'ada@example.com' },
    });
    expect(change.json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });

    // An email a primary user holds is reserved: a passkey user with it cannot become primary.
    const cy = (await post('/public/recipe/signup', { email: 'cy@example.com', password: 'pw-12345678' })).json.user.id;
    expect((await post('/recipe/accountlinking/user/primary', { recipeUserId: cy })).json.status).toBe('OK');
    const cyPasskey = (await signUp(t.app, new SoftAuthenticator(), 'cy@example.com')).json.recipeUserId;
    expect((await post('/recipe/accountlinking/user/primary', { recipeUserId: cyPasskey })).json).toMatchObject({
      status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: cy,
    });

    // Unlinking and removing keep the passkey with its own login method.
    expect((await post('/recipe/accountlinking/user/unlink', { recipeUserId: passwordUser })).json.status).toBe('OK');
    expect((await signIn(t.app, key)).json.user.loginMethods).toHaveLength(1);
  });
});
