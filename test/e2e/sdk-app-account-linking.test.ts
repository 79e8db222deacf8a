import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import supertokens from 'supertokens-node';
import AccountLinking from 'supertokens-node/recipe/accountlinking/index.js';
import ThirdParty from 'supertokens-node/recipe/thirdparty/index.js';
import { FrontendClient, type Answer } from './app/client.js';
import { coreApiKey, startListeningCore, type ListeningCore } from './app/core.js';
import { Outbox } from './app/outbox.js';
import { startSdkApp, type SdkApp } from './app/sdk-app.js';

// Issue 55, items 1 and 2, as the SDK's own tests meet them: supertokens-node 24's request layer on Express with
// automatic account linking (test/e2e/app/sdk-app.ts), driven over HTTP as the frontend SDK drives it.
const answered = (answer: Answer) => ({ status: answer.status, body: answer.body });
const fields = (email: string, password?: string) => ({
  formFields: [{ id: 'email', value: email }, ...(password === undefined ? [] : [{ id: 'password', value: password }])],
});

describe('an app on supertokens-node 24 with account linking, against the core', () => {
  let core: ListeningCore;
  let app: SdkApp;
  const outbox = new Outbox();

  beforeAll(async () => {
    core = await startListeningCore();
    app = await startSdkApp({ coreUrl: core.url, apiKey: coreApiKey, outbox, accountLinking: true });
  });
  afterAll(async () => {
    await app?.close();
    await core?.close();
  });

  it('lets a Google user add a password through the forgot-password flow and sign in with it', async () => {
    const google = await ThirdParty.manuallyCreateOrUpdateUser('public', 'google', 'g-106', 'gia@example.com', true);
    if (google.status !== 'OK') throw new Error(google.status);
    const gia = google.user.id;
    expect(google.user.isPrimaryUser).toBe(true);

    const asked = await new FrontendClient(app.url, 'header').request('POST', '/auth/user/password/reset/token', {
      rid: 'emailpassword',
      body: fields('gia@example.com'),
    });
    expect(answered(asked)).toEqual({ status: 200, body: { status: 'OK' } });
    const token = outbox.linkParam('gia@example.com', 'PASSWORD_RESET', 'token');

    const reset = await new FrontendClient(app.url, 'header').request('POST', '/auth/user/password/reset', {
      rid: 'emailpassword',
      body: { method: 'token', token, formFields: [{ id: 'password', value: 'gia password 1' }] },
    });
    expect(answered(reset)).toEqual({ status: 200, body: { status: 'OK' } });

    const c = new FrontendClient(app.url, 'header');
    const signIn = await c.request('POST', '/auth/signin', { rid: 'emailpassword', body: fields('gia@example.com', 'gia password 1') });
    expect(signIn.body).toMatchObject({ status: 'OK', user: { id: gia, isPrimaryUser: true, emails: ['gia@example.com'] } });
    expect((signIn.body.user.loginMethods as { recipeId: string }[]).map((method) => method.recipeId).sort()).toEqual([
      'emailpassword',
      'thirdparty',
    ]);
    const me = await c.request('GET', '/api/me');
    expect(me.body).toMatchObject({ userId: gia });
    expect(me.body.recipeUserId).not.toBe(gia);
  });

  it('refuses a session made before its login method was linked, after the link', async () => {
    const c = new FrontendClient(app.url, 'header');
    const signUp = await c.request('POST', '/auth/signup', { rid: 'emailpassword', body: fields('kim@example.com', 'kim password 1') });
    expect(signUp.body.status).toBe('OK');
    const kim = signUp.body.user.id as string;
    expect((await c.request('GET', '/api/me/strict')).body).toMatchObject({ userId: kim, recipeUserId: kim });

    const other = await ThirdParty.manuallyCreateOrUpdateUser('public', 'google', 'g-207', 'kim.other@example.com', true);
    if (other.status !== 'OK') throw new Error(other.status);
    const linked = await AccountLinking.linkAccounts(supertokens.convertToRecipeUserId(kim), other.user.id);
    expect(linked.status).toBe('OK');

    expect(answered(await c.request('GET', '/api/me/strict'))).toEqual({ status: 401, body: { message: 'unauthorised' } });
    expect(c.tokens()).toEqual({ access: undefined, refresh: undefined });
    const { rows } = await core.db.pool.query('SELECT user_id FROM session_info WHERE user_id = $1', [kim]);
    expect(rows).toEqual([]);

    // Signing in again gives a session of the primary user.
    const again = new FrontendClient(app.url, 'header');
    await again.request('POST', '/auth/signin', { rid: 'emailpassword', body: fields('kim@example.com', 'kim password 1') });
    expect((await again.request('GET', '/api/me/strict')).body).toMatchObject({ userId: other.user.id, recipeUserId: kim });
  });
});
