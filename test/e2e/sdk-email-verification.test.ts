import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import supertokens from 'supertokens-node';
import EmailPassword from 'supertokens-node/recipe/emailpassword/index.js';
import EmailVerification from 'supertokens-node/recipe/emailverification/index.js';
import Session from 'supertokens-node/recipe/session/index.js';
import { countRows, useTestApp } from '../helper.js';

// The official SDK's EmailVerification recipe functions against the core listening on a real socket, unchanged.
const apiKey = 'e2e-api-key-with-more-than-20-chars';
const tenantId = 'public';

describe('supertokens-node EmailVerification against a listening core', () => {
  const reached = new Set<string>();

  const t = useTestApp({ api_keys: apiKey });
  beforeAll(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    supertokens.init({
      framework: 'express',
      supertokens: {
        connectionURI: baseUrl,
        apiKey,
        networkInterceptor: (request) => {
          reached.add(`${request.method.toUpperCase()} ${new URL(request.url).pathname}`);
          return request;
        },
      },
      appInfo: { appName: 'identity-core e2e', apiDomain: 'http://localhost:3001', websiteDomain: 'http://localhost:3000' },
      // The recipe needs Session initialised; no session is made here.
      recipeList: [EmailPassword.init(), EmailVerification.init({ mode: 'REQUIRED' }), Session.init()],
    });
  });

  it('creates, spends, reads, unverifies and revokes, for the user’s own email and another', async () => {
    const signUp = await EmailPassword.signUp(tenantId, 'ada@example.com', 'ada password');
    if (signUp.status !== 'OK') throw new Error(`sign-up answered ${signUp.status}`);
    const ada = signUp.recipeUserId;
    expect(signUp.user.loginMethods[0].verified).toBe(false);
    expect(await EmailVerification.isEmailVerified(ada)).toBe(false);

    // No email given: the SDK reads the user's own from the core.
    const created = await EmailVerification.createEmailVerificationToken(tenantId, ada);
    expect(created).toEqual({ status: 'OK', token: expect.stringMatching(/^[A-Za-z0-9_-]{64}$/) });
    if (created.status !== 'OK') throw new Error('unreachable');
    const verified = await EmailVerification.verifyEmailUsingToken(tenantId, created.token);
    expect(verified.status === 'OK' && [verified.user.recipeUserId.getAsString(), verified.user.email]).toEqual([
      ada.getAsString(),
      'ada@example.com',
    ]);
    expect(await EmailVerification.verifyEmailUsingToken(tenantId, created.token)).toEqual({
      status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR',
    });
    expect(await EmailVerification.isEmailVerified(ada)).toBe(true);
    expect(await EmailVerification.isEmailVerified(ada, 'ada@example.com')).toBe(true);
    expect((await supertokens.getUser(ada.getAsString()))?.loginMethods[0].verified).toBe(true);
    expect(await EmailVerification.createEmailVerificationToken(tenantId, ada)).toEqual({ status: 'EMAIL_ALREADY_VERIFIED_ERROR' });

    expect(await EmailVerification.unverifyEmail(ada)).toEqual({ status: 'OK' });
    expect(await EmailVerification.isEmailVerified(ada)).toBe(false);
    expect(await countRows(t.db, 'email_verifications')).toBe(0);

    const other = await EmailVerification.createEmailVerificationToken(tenantId, ada, 'ada.new@example.com');
    if (other.status !== 'OK') throw new Error(`token answered ${other.status}`);
    expect(await EmailVerification.revokeEmailVerificationTokens(tenantId, ada, 'ada.new@example.com')).toEqual({ status: 'OK' });
    expect(await countRows(t.db, 'email_verification_tokens')).toBe(0);
    expect(await EmailVerification.verifyEmailUsingToken(tenantId, other.token)).toEqual({
      status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR',
    });
    expect(await EmailVerification.isEmailVerified(ada, 'ada.new@example.com')).toBe(false);
  });

  it('works with the external id once the user is mapped', async () => {
    const signUp = await EmailPassword.signUp(tenantId, 'bob@example.com', 'bob password');
    if (signUp.status !== 'OK') throw new Error(`sign-up answered ${signUp.status}`);
    expect(await supertokens.createUserIdMapping({ superTokensUserId: signUp.user.id, externalUserId: 'auth0|bob' })).toEqual({
      status: 'OK',
    });
    const bob = supertokens.convertToRecipeUserId('auth0|bob');
    const created = await EmailVerification.createEmailVerificationToken(tenantId, bob);
    if (created.status !== 'OK') throw new Error(`token answered ${created.status}`);
    const verified = await EmailVerification.verifyEmailUsingToken(tenantId, created.token);
    expect(verified.status === 'OK' && [verified.user.recipeUserId.getAsString(), verified.user.email]).toEqual([
      'auth0|bob',
      'bob@example.com',
    ]);
    expect(await EmailVerification.isEmailVerified(bob)).toBe(true);
  });

  it('reached the five email-verification routes', () => {
    const routes = [...reached].map((route) => route.replace(' /public/', ' /')).filter((route) => route.includes('/email/verify'));
    expect(new Set(routes)).toEqual(
      new Set([
        'POST /recipe/user/email/verify/token',
        'POST /recipe/user/email/verify',
        'GET /recipe/user/email/verify',
        'POST /recipe/user/email/verify/remove',
        'POST /recipe/user/email/verify/token/remove',
      ]),
    );
  });
});
