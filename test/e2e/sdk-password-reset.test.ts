import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import supertokens from 'supertokens-node';
import EmailPassword from 'supertokens-node/recipe/emailpassword/index.js';
import { countRows, useTestApp } from '../helper.js';

// Issue 26 and issue 27, item 6: the official SDK's password-reset functions against the core listening on a real
// socket. supertokens-node v24 spends a token with `{token}` alone (the core answered 400 wanting a method).
const apiKey = 'e2e-api-key-with-more-than-20-chars';
const tenantId = 'public';

describe('supertokens-node password reset against a listening core', () => {
  const consumeBodies: unknown[] = [];

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
          if (new URL(request.url).pathname.endsWith('/recipe/user/password/reset/token/consume')) consumeBodies.push(request.body);
          return request;
        },
      },
      appInfo: { appName: 'identity-core e2e', apiDomain: 'http://localhost:3001', websiteDomain: 'http://localhost:3000' },
      recipeList: [EmailPassword.init()],
    });
  });

  it('creates a token, spends it with the token alone, and resets the password with it', async () => {
    const signUp = await EmailPassword.signUp(tenantId, 'ada@example.com', 'old password 1');
    if (signUp.status !== 'OK') throw new Error(`sign-up answered ${signUp.status}`);
    const userId = signUp.user.id;

    const created = await EmailPassword.createResetPasswordToken(tenantId, userId, 'ada@example.com');
    if (created.status !== 'OK') throw new Error(`token answered ${created.status}`);
    expect(await EmailPassword.consumePasswordResetToken(tenantId, created.token)).toEqual({
      status: 'OK',
      userId,
      email: 'ada@example.com',
    });
    expect(consumeBodies).toEqual([{ token: created.token }]);
    expect(await EmailPassword.consumePasswordResetToken(tenantId, created.token)).toEqual({
      status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR',
    });

    const again = await EmailPassword.createResetPasswordToken(tenantId, userId, 'ada@example.com');
    if (again.status !== 'OK') throw new Error(`token answered ${again.status}`);
    expect(await EmailPassword.resetPasswordUsingToken(tenantId, again.token, 'new password 2')).toEqual({ status: 'OK' });
    expect((await EmailPassword.signIn(tenantId, 'ada@example.com', 'new password 2')).status).toBe('OK');
  });

  it('refuses a token after the email it was issued for changed', async () => {
    const signUp = await EmailPassword.signUp(tenantId, 'bob@example.com', 'old password 1');
    if (signUp.status !== 'OK') throw new Error(`sign-up answered ${signUp.status}`);
    const created = await EmailPassword.createResetPasswordToken(tenantId, signUp.user.id, 'bob@example.com');
    if (created.status !== 'OK') throw new Error(`token answered ${created.status}`);
    expect(await EmailPassword.updateEmailOrPassword({ recipeUserId: signUp.recipeUserId, email: 'bob@new.example.com' })).toEqual({
      status: 'OK',
    });
    expect(await EmailPassword.resetPasswordUsingToken(tenantId, created.token, 'taken over 3')).toEqual({
      status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR',
    });
    expect((await EmailPassword.signIn(tenantId, 'bob@new.example.com', 'old password 1')).status).toBe('OK');
    expect(await countRows(t.db, 'emailpassword_reset_tokens')).toBe(0);
  });
});
