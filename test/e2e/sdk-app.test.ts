import fs from 'node:fs';
import bcryptjs from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Session from 'supertokens-node/recipe/session/index.js';
import { makeTempDir } from '../cli/fixtures.js';
import { runCommand } from '../cli/harness.js';
import { FrontendClient, type Answer, type TransferMode } from './app/client.js';
import { coreApiKey, startListeningCore, type ListeningCore } from './app/core.js';
import { startFakeOAuthProvider, type FakeOAuthProvider } from './app/fake-oauth.js';
import { Outbox } from './app/outbox.js';
import { startSdkApp, thirdPartyId, type SdkApp } from './app/sdk-app.js';

// The app a customer runs after the cutover: supertokens-node 24 with its own API layer (test/e2e/app/sdk-app.ts),
// pointed at the core, driven over HTTP as the frontend SDK drives it. Only the OpenID provider and the
// mail/SMS outbox are fakes. Anti-CSRF is VIA_TOKEN, so cookie mode carries the anti-csrf header.
const signerKey = 'gRhC3eDeQOdyEn4bMd9c6kxguWVmcIVq/SKa0JDPFeM6TcEevkaW56sIWfx88OHbJKnCXdWscZx0l2WbCJ1wbg==';
// Password `testPass123` under the project parameters above (the scrypt vector of test/e2e/sdk.test.ts).
const scryptHash =
  '$f_scrypt$qZM035es5AXYqavsKD6/rhtxg7t5PhcyRgv5blc3doYbChX8keMfQLq1ra96O2Pf2TP/eZrR5xtPCYN6mX3ESA==$/cj0jC1br5o4+w==$m=14$r=8$s=Bw==';

/** An answer's status and body, to compare whole. */
const answered = (answer: Answer) => ({ status: answer.status, body: answer.body });

const signInFields = (email: string, password: string) => ({
  formFields: [
    { id: 'email', value: email },
    { id: 'password', value: password },
  ],
});

describe('an app on supertokens-node 24 and its own API layer, against the core', () => {
  let core: ListeningCore;
  let app: SdkApp;
  let oauth: FakeOAuthProvider;
  const outbox = new Outbox();
  const temp = makeTempDir();

  beforeAll(async () => {
    oauth = await startFakeOAuthProvider();
    // DEBUG: the most the core ever logs, searched for secrets in the last test.
    core = await startListeningCore({ idp_password_hashing_signer_key: signerKey, log_level: 'DEBUG' });
    app = await startSdkApp({ coreUrl: core.url, apiKey: coreApiKey, outbox, oauth, antiCsrf: 'VIA_TOKEN' });
  });
  afterAll(async () => {
    await app?.close();
    await oauth?.close();
    await core?.close();
    temp.remove();
  });

  const clients: FrontendClient[] = [];
  const client = (mode: TransferMode = 'header') => {
    const c = new FrontendClient(app.url, mode);
    clients.push(c);
    return c;
  };

  /** The core routes the SDK called while `action` ran, as `METHOD /path` (its one-time `/apiversion` left out). */
  async function coreCallsOf(action: () => Promise<unknown>): Promise<string[]> {
    const start = app.coreCalls.length;
    await action();
    return app.coreCalls
      .slice(start)
      .map(({ method, path }) => `${method} ${path}`)
      .filter((call) => call !== 'GET /apiversion');
  }

  async function sessionsInCore(userId: string): Promise<string[]> {
    const { rows } = await core.db.pool.query<{ session_handle: string }>(
      'SELECT session_handle FROM session_info WHERE user_id = $1 ORDER BY session_handle',
      [userId],
    );
    return rows.map((row) => row.session_handle);
  }

  async function rowsIn(table: string): Promise<number> {
    const { rows } = await core.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
    return rows[0].n;
  }

  async function coreRequest(method: string, path: string, body?: unknown): Promise<any> {
    const response = await fetch(`${core.url}${path}`, {
      method,
      headers: { 'api-key': coreApiKey, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    return response.json();
  }

  async function signIn(c: FrontendClient, email: string, password: string): Promise<Answer> {
    const answer = await c.request('POST', '/auth/signin', { rid: 'emailpassword', body: signInFields(email, password) });
    expect(answer.status).toBe(200);
    return answer;
  }

  /** `/api/me` answers the session's ids; the front token and the token's claims must say the same. */
  async function expectSignedInAs(c: FrontendClient, userId: string, recipeUserId = userId): Promise<string> {
    const me = await c.request('GET', '/api/me');
    expect(answered(me)).toEqual({ status: 200, body: { userId, recipeUserId, sessionHandle: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
    expect(c.frontToken).toMatchObject({
      uid: userId,
      up: { sub: userId, rsub: recipeUserId, tId: 'public', sessionHandle: me.body.sessionHandle },
    });
    expect(c.frontToken!.ate).toBe((c.frontToken!.up.exp as number) * 1000);
    return me.body.sessionHandle as string;
  }

  it('signs up, reaches the protected route without asking the core, refreshes, promotes and signs out (header mode)', async () => {
    const c = client('header');
    let signUp!: Answer;
    expect(
      await coreCallsOf(async () => {
        signUp = await c.request('POST', '/auth/signup', { rid: 'emailpassword', body: signInFields('ada@example.com', 'ada password 1') });
      }),
    ).toEqual([
      'GET /recipe/multitenancy/tenant/v2',
      'GET /users/by-accountinfo',
      'POST /recipe/signup',
      'GET /user/id',
      // The EmailVerification recipe puts the verified flag in the new session's claims.
      'GET /recipe/user/email/verify',
      'POST /recipe/session',
    ]);
    expect(signUp.status).toBe(200);
    const userId = signUp.body.user.id as string;
    expect(signUp.body).toEqual({
      status: 'OK',
      user: {
        id: userId,
        isPrimaryUser: false,
        tenantIds: ['public'],
        timeJoined: expect.any(Number),
        emails: ['ada@example.com'],
        phoneNumbers: [],
        thirdParty: [],
        webauthn: { credentialIds: [] },
        loginMethods: [
          {
            recipeId: 'emailpassword',
            recipeUserId: userId,
            tenantIds: ['public'],
            email: 'ada@example.com',
            timeJoined: signUp.body.user.timeJoined,
            verified: false,
          },
        ],
      },
    });
    expect(signUp.headers.get('st-access-token')).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(signUp.headers.get('st-refresh-token')).toEqual(expect.any(String));
    expect(signUp.headers.get('set-cookie')).toBeNull();
    const firstRefresh = c.refreshToken!;

    // The access token is checked by the SDK against the core's JWKS: no core call on the protected route.
    let handle!: string;
    expect(await coreCallsOf(async () => (handle = await expectSignedInAs(c, userId)))).toEqual([]);
    expect(await sessionsInCore(userId)).toEqual([handle]);

    const refreshed = await c.refresh();
    expect(answered(refreshed)).toEqual({ status: 200, body: {} });
    expect(c.refreshToken).not.toBe(firstRefresh);
    expect(c.frontToken!.up.parentRefreshTokenHash1).toEqual(expect.any(String));
    // First use of the refreshed token: the SDK asks the core once, which promotes it and mints a new token.
    const beforePromotion = c.accessToken;
    expect(await coreCallsOf(() => expectSignedInAs(c, userId))).toEqual(['POST /recipe/session/verify']);
    expect(c.accessToken).not.toBe(beforePromotion);
    expect(c.frontToken!.up.parentRefreshTokenHash1).toBeNull();
    expect(await coreCallsOf(() => expectSignedInAs(c, userId))).toEqual([]);

    // A second device signs in with the same password: two sessions.
    const other = client('header');
    expect((await signIn(other, 'ada@example.com', 'ada password 1')).body.user.id).toBe(userId);
    expect((await sessionsInCore(userId)).length).toBe(2);
    const wrong = await other.request('POST', '/auth/signin', { rid: 'emailpassword', body: signInFields('ada@example.com', 'nope') });
    expect(wrong.body).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });

    const staleAccessToken = c.accessToken!;
    let signOut!: Answer;
    expect(await coreCallsOf(async () => (signOut = await c.request('POST', '/auth/signout')))).toEqual(['POST /recipe/session/remove']);
    expect(answered(signOut)).toEqual({ status: 200, body: { status: 'OK' } });
    expect(signOut.headers.get('front-token')).toBe('remove');
    expect(c.tokens()).toEqual({ access: undefined, refresh: undefined });
    expect(await sessionsInCore(userId)).toHaveLength(1);
    expect(answered(await c.request('GET', '/api/me'))).toEqual({ status: 401, body: { message: 'unauthorised' } });
    // A copy of the signed-out access token is still accepted until it expires, unless the route checks the database.
    c.setTokens({ access: staleAccessToken, refresh: firstRefresh });
    expect((await c.request('GET', '/api/me')).status).toBe(200);
    expect(answered(await c.request('GET', '/api/me/strict'))).toEqual({ status: 401, body: { message: 'unauthorised' } });
    expect(answered(await c.refresh())).toEqual({ status: 401, body: { message: 'unauthorised' } });
  });

  it('carries the session in cookies with the anti-csrf token (cookie mode, VIA_TOKEN)', async () => {
    const c = client('cookie');
    const signUp = await c.request('POST', '/auth/signup', {
      rid: 'emailpassword',
      body: signInFields('bea@example.com', 'bea password 1'),
    });
    expect(signUp.status).toBe(200);
    const userId = signUp.body.user.id as string;
    const cookies = signUp.headers.getSetCookie();
    expect(cookies.find((line) => line.startsWith('sAccessToken='))).toMatch(/; Path=\/; .*HttpOnly/);
    expect(cookies.find((line) => line.startsWith('sRefreshToken='))).toMatch(/; Path=\/auth\/session\/refresh; .*HttpOnly/);
    expect(signUp.headers.get('st-access-token')).toBeNull();
    const antiCsrf = c.antiCsrf;
    expect(antiCsrf).toMatch(/^[0-9a-f-]{36}$/);
    expect(c.frontToken!.up.antiCsrfToken).toBe(antiCsrf);
    await expectSignedInAs(c, userId);

    // A state-changing request without the anti-csrf header is refused; with it, it passes.
    c.antiCsrf = undefined;
    expect(answered(await c.request('POST', '/api/me'))).toEqual({ status: 401, body: { message: 'try refresh token' } });
    c.antiCsrf = antiCsrf;
    expect(answered(await c.request('POST', '/api/me'))).toEqual({
      status: 200,
      body: { userId, recipeUserId: userId, sessionHandle: expect.any(String) },
    });

    // Refresh without the token is refused by the core (the session stays); with it, a new anti-csrf token comes.
    const kept = c.tokens();
    c.antiCsrf = undefined;
    expect(answered(await c.refresh())).toEqual({ status: 401, body: { message: 'unauthorised' } });
    c.setTokens(kept);
    c.antiCsrf = antiCsrf;
    expect(answered(await c.refresh())).toEqual({ status: 200, body: {} });
    expect(c.antiCsrf).toMatch(/^[0-9a-f-]{36}$/);
    expect(c.antiCsrf).not.toBe(antiCsrf);
    expect(c.tokens().access).not.toBe(kept.access);
    expect(answered(await c.request('POST', '/api/me'))).toEqual({
      status: 200,
      body: { userId, recipeUserId: userId, sessionHandle: expect.any(String) },
    });

    expect(answered(await c.request('POST', '/auth/signout'))).toEqual({ status: 200, body: { status: 'OK' } });
    expect(c.tokens()).toEqual({ access: undefined, refresh: undefined });
    expect(await sessionsInCore(userId)).toEqual([]);
  });

  it('signs in users imported by bcrypt and $f_scrypt$ hash under their old ids', async () => {
    const users = [
      { email: 'cat@example.com', password: 'cat old password', hash: bcryptjs.hashSync('cat old password', 4), oldId: 'legacy|cat' },
      { email: 'dan@example.com', password: 'testPass123', hash: scryptHash, oldId: 'firebase-uid-dan' },
    ];
    for (const user of users) {
      const imported = await coreRequest('POST', '/recipe/user/passwordhash/import', { email: user.email, passwordHash: user.hash });
      expect(await coreRequest('POST', '/recipe/userid/map', { superTokensUserId: imported.user.id, externalUserId: user.oldId })).toEqual({
        status: 'OK',
      });

      const c = client('header');
      const wrong = await c.request('POST', '/auth/signin', { rid: 'emailpassword', body: signInFields(user.email, 'not it') });
      expect(wrong.body).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
      const signedIn = await signIn(c, user.email, user.password);
      expect(signedIn.body).toMatchObject({ status: 'OK', user: { id: user.oldId, loginMethods: [{ recipeUserId: user.oldId }] } });
      await expectSignedInAs(c, user.oldId);
      expect(answered(await c.refresh())).toEqual({ status: 200, body: {} });
      await expectSignedInAs(c, user.oldId);
      expect((await sessionsInCore(user.oldId)).length).toBe(1);
    }
  });

  it('signs in a user moved by the migration command under the old provider’s id', async () => {
    const users = temp.file(
      'auth0-users.ndjson',
      `${JSON.stringify({
        user_id: 'auth0|m1',
        email: 'Eli@Example.com',
        email_verified: true,
        created_at: '2021-03-04T05:06:07.000Z',
        identities: [{ provider: 'auth0', user_id: 'm1', connection: 'Username-Password-Authentication', isSocial: false }],
      })}\n`,
    );
    const hashes = temp.file(
      'auth0-hashes.ndjson',
      `${JSON.stringify({ _id: { $oid: 'm1' }, email: 'eli@example.com', passwordHash: bcryptjs.hashSync('eli old password', 4) })}\n`,
    );
    const result = await runCommand(
      ['migrate', 'auth0', users, '--core-url', core.url, '--poll-interval', '0.02', '--password-hashes', hashes],
      { env: { IDENTITY_CORE_API_KEY: coreApiKey } },
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(`${users}.migrate-report.json`, 'utf8')).totals).toMatchObject({ read: 1, imported: 1, failed: 0 });

    const c = client('cookie');
    const signedIn = await signIn(c, 'eli@example.com', 'eli old password');
    expect(signedIn.body).toMatchObject({
      status: 'OK',
      user: { id: 'auth0|m1', emails: ['eli@example.com'], loginMethods: [{ verified: true }] },
    });
    await expectSignedInAs(c, 'auth0|m1');
    // The session is stored under the old id, the one the command mapped.
    const { rows } = await core.db.pool.query("SELECT user_id FROM user_id_mappings WHERE external_user_id = 'auth0|m1'");
    expect(rows).toHaveLength(1);
    expect(await sessionsInCore('auth0|m1')).toHaveLength(1);
    expect(answered(await c.request('GET', '/api/verified'))).toEqual({
      status: 200,
      body: { userId: 'auth0|m1', recipeUserId: 'auth0|m1', sessionHandle: expect.any(String) },
    });
  });

  it('signs in without a password: email code, magic link and SMS code', async () => {
    // Email, typed code.
    const byCode = client('header');
    const created = await byCode.request('POST', '/auth/signinup/code', { rid: 'passwordless', body: { email: 'fay@example.com' } });
    expect(answered(created)).toEqual({
      status: 200,
      body: {
        status: 'OK',
        deviceId: expect.any(String),
        preAuthSessionId: expect.any(String),
        flowType: 'USER_INPUT_CODE_AND_MAGIC_LINK',
      },
    });
    const mail = outbox.last('fay@example.com', 'PASSWORDLESS_LOGIN');
    expect(mail).toMatchObject({
      channel: 'email',
      code: expect.stringMatching(/^\d{6}$/),
      link: expect.stringContaining(`${app.url}/auth/verify?`),
    });
    const wrong = await byCode.request('POST', '/auth/signinup/code/consume', {
      rid: 'passwordless',
      body: { deviceId: created.body.deviceId, preAuthSessionId: created.body.preAuthSessionId, userInputCode: '000000x' },
    });
    expect(wrong.body).toEqual({ status: 'INCORRECT_USER_INPUT_CODE_ERROR', failedCodeInputAttemptCount: 1, maximumCodeInputAttempts: 5 });
    const consumed = await byCode.request('POST', '/auth/signinup/code/consume', {
      rid: 'passwordless',
      body: { deviceId: created.body.deviceId, preAuthSessionId: created.body.preAuthSessionId, userInputCode: mail.code },
    });
    expect(consumed.body).toMatchObject({ status: 'OK', createdNewRecipeUser: true, user: { emails: ['fay@example.com'] } });
    const fay = consumed.body.user.id as string;
    await expectSignedInAs(byCode, fay);

    // The same email, magic link, in cookie mode: the same user, not a new one.
    const byLink = client('cookie');
    const again = await byLink.request('POST', '/auth/signinup/code', { rid: 'passwordless', body: { email: 'fay@example.com' } });
    const link = new URL(outbox.last('fay@example.com', 'PASSWORDLESS_LOGIN').link!);
    expect(link.searchParams.get('preAuthSessionId')).toBe(again.body.preAuthSessionId);
    const viaLink = await byLink.request('POST', '/auth/signinup/code/consume', {
      rid: 'passwordless',
      body: { preAuthSessionId: link.searchParams.get('preAuthSessionId'), linkCode: link.hash.slice(1) },
    });
    expect(viaLink.body).toMatchObject({ status: 'OK', createdNewRecipeUser: false, user: { id: fay } });
    await expectSignedInAs(byLink, fay);
    // A link is spent once.
    const reused = await client('cookie').request('POST', '/auth/signinup/code/consume', {
      rid: 'passwordless',
      body: { preAuthSessionId: link.searchParams.get('preAuthSessionId'), linkCode: link.hash.slice(1) },
    });
    expect(reused.body).toEqual({ status: 'RESTART_FLOW_ERROR' });

    // Phone, code by SMS.
    const byPhone = client('header');
    const phoneCode = await byPhone.request('POST', '/auth/signinup/code', { rid: 'passwordless', body: { phoneNumber: '+14155552671' } });
    const sms = outbox.last('+14155552671', 'PASSWORDLESS_LOGIN');
    expect(sms.channel).toBe('sms');
    const phoneConsumed = await byPhone.request('POST', '/auth/signinup/code/consume', {
      rid: 'passwordless',
      body: { deviceId: phoneCode.body.deviceId, preAuthSessionId: phoneCode.body.preAuthSessionId, userInputCode: sms.code },
    });
    expect(phoneConsumed.body).toMatchObject({ status: 'OK', createdNewRecipeUser: true, user: { phoneNumbers: ['+14155552671'] } });
    await expectSignedInAs(byPhone, phoneConsumed.body.user.id);
    expect(await sessionsInCore(fay)).toHaveLength(2);
    // Every device's codes were spent.
    expect(await rowsIn('passwordless_devices')).toBe(0);
    expect(await rowsIn('passwordless_codes')).toBe(0);
  });

  it('signs in and up with an OpenID provider (authorization code, PKCE, id_token and UserInfo)', async () => {
    oauth.addAccount({ sub: 'oidc-7', email: 'gus@example.com', email_verified: true, name: 'Gus' });
    const redirectURIOnProviderDashboard = `${app.url}/auth/callback/${thirdPartyId}`;

    async function signInWithProvider(c: FrontendClient): Promise<Answer> {
      const start = await c.request(
        'GET',
        `/auth/authorisationurl?thirdPartyId=${thirdPartyId}&redirectURIOnProviderDashboard=${encodeURIComponent(redirectURIOnProviderDashboard)}`,
        { rid: 'thirdparty' },
      );
      expect(start.body).toEqual({ status: 'OK', urlWithQueryParams: expect.any(String), pkceCodeVerifier: expect.any(String) });
      // The browser goes to the provider with a state of its own, and the user picks an account there.
      const authorize = new URL(start.body.urlWithQueryParams);
      expect(`${authorize.origin}${authorize.pathname}`).toBe(`${oauth.issuer}/authorize`);
      expect(Object.fromEntries(authorize.searchParams)).toEqual({
        client_id: oauth.clientId,
        redirect_uri: redirectURIOnProviderDashboard,
        response_type: 'code',
        scope: 'openid email profile',
        code_challenge: expect.any(String),
        code_challenge_method: 'S256',
      });
      authorize.searchParams.set('state', 'state-from-the-frontend');
      authorize.searchParams.set('login_hint', 'oidc-7');
      const redirect = await fetch(authorize, { redirect: 'manual' });
      expect(redirect.status).toBe(302);
      const back = new URL(redirect.headers.get('location')!);
      expect(back.searchParams.get('state')).toBe('state-from-the-frontend');
      return c.request('POST', '/auth/signinup', {
        rid: 'thirdparty',
        body: {
          thirdPartyId,
          redirectURIInfo: {
            redirectURIOnProviderDashboard,
            redirectURIQueryParams: Object.fromEntries(back.searchParams),
            pkceCodeVerifier: start.body.pkceCodeVerifier,
          },
        },
      });
    }

    const first = client('header');
    const signedUp = await signInWithProvider(first);
    expect(signedUp.body).toMatchObject({
      status: 'OK',
      createdNewRecipeUser: true,
      user: {
        emails: ['gus@example.com'],
        thirdParty: [{ id: thirdPartyId, userId: 'oidc-7' }],
        loginMethods: [
          { recipeId: 'thirdparty', email: 'gus@example.com', verified: true, thirdParty: { id: thirdPartyId, userId: 'oidc-7' } },
        ],
      },
    });
    const gus = signedUp.body.user.id as string;
    await expectSignedInAs(first, gus);
    expect(answered(await first.request('GET', '/api/verified'))).toEqual({
      status: 200,
      body: { userId: gus, recipeUserId: gus, sessionHandle: expect.any(String) },
    });

    const second = client('cookie');
    const signedIn = await signInWithProvider(second);
    expect(signedIn.body).toMatchObject({ status: 'OK', createdNewRecipeUser: false, user: { id: gus } });
    await expectSignedInAs(second, gus);
    expect(oauth.requests.filter((request) => request !== 'GET /jwks')).toEqual([
      'GET /.well-known/openid-configuration',
      'GET /authorize',
      'POST /token',
      'GET /userinfo',
      'GET /authorize',
      'POST /token',
      'GET /userinfo',
    ]);
  });

  it('verifies an email: the claim blocks the route until the link from the mail is used', async () => {
    const c = client('header');
    const signUp = await c.request('POST', '/auth/signup', {
      rid: 'emailpassword',
      body: signInFields('hal@example.com', 'hal password 1'),
    });
    const hal = signUp.body.user.id as string;
    expect(answered(await c.request('GET', '/api/verified'))).toEqual({
      status: 403,
      body: {
        message: 'invalid claim',
        claimValidationErrors: [{ id: 'st-ev', reason: { message: 'wrong value', expectedValue: true, actualValue: false } }],
      },
    });
    expect(answered(await c.request('GET', '/auth/user/email/verify', { rid: 'emailverification' }))).toEqual({
      status: 200,
      body: { status: 'OK', isVerified: false },
    });

    expect(answered(await c.request('POST', '/auth/user/email/verify/token', { rid: 'emailverification' }))).toEqual({
      status: 200,
      body: { status: 'OK' },
    });
    const token = outbox.linkParam('hal@example.com', 'EMAIL_VERIFICATION', 'token');
    expect(outbox.last('hal@example.com', 'EMAIL_VERIFICATION').link).toContain(`${app.url}/auth/verify-email?`);
    const verified = await c.request('POST', '/auth/user/email/verify', { rid: 'emailverification', body: { method: 'token', token } });
    expect(answered(verified)).toEqual({ status: 200, body: { status: 'OK' } });
    // The claim in the session was updated by the core (regenerate), so the route opens without a new sign-in.
    expect(c.frontToken!.up['st-ev']).toMatchObject({ v: true });
    expect(answered(await c.request('GET', '/api/verified'))).toEqual({
      status: 200,
      body: { userId: hal, recipeUserId: hal, sessionHandle: expect.any(String) },
    });
    expect(
      await c.request('POST', '/auth/user/email/verify', { rid: 'emailverification', body: { method: 'token', token } }),
    ).toMatchObject({
      status: 200,
      body: { status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' },
    });
    expect(await rowsIn('email_verification_tokens')).toBe(0);
  });

  it('resets a password with the link from the mail', async () => {
    const c = client('header');
    const signUp = await c.request('POST', '/auth/signup', {
      rid: 'emailpassword',
      body: signInFields('ivy@example.com', 'ivy password 1'),
    });
    const ivy = signUp.body.user.id as string;
    const asked = await client().request('POST', '/auth/user/password/reset/token', {
      rid: 'emailpassword',
      body: { formFields: [{ id: 'email', value: 'ivy@example.com' }] },
    });
    expect(answered(asked)).toEqual({ status: 200, body: { status: 'OK' } });
    const mail = outbox.last('ivy@example.com', 'PASSWORD_RESET');
    expect(mail.link).toContain(`${app.url}/auth/reset-password?`);
    const token = outbox.linkParam('ivy@example.com', 'PASSWORD_RESET', 'token');

    const reset = await client().request('POST', '/auth/user/password/reset', {
      rid: 'emailpassword',
      body: { method: 'token', token, formFields: [{ id: 'password', value: 'ivy password 2' }] },
    });
    expect(answered(reset)).toEqual({ status: 200, body: { status: 'OK' } });
    const spent = await client().request('POST', '/auth/user/password/reset', {
      rid: 'emailpassword',
      body: { method: 'token', token, formFields: [{ id: 'password', value: 'ivy password 3' }] },
    });
    expect(spent.body).toEqual({ status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' });
    expect(await rowsIn('emailpassword_reset_tokens')).toBe(0);

    const other = client('header');
    const old = await other.request('POST', '/auth/signin', {
      rid: 'emailpassword',
      body: signInFields('ivy@example.com', 'ivy password 1'),
    });
    expect(old.body).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect((await signIn(other, 'ivy@example.com', 'ivy password 2')).body.user.id).toBe(ivy);
    await expectSignedInAs(other, ivy);
  });

  it('refuses a revoked session where the route checks the database', async () => {
    const c = client('header');
    const signUp = await c.request('POST', '/auth/signup', {
      rid: 'emailpassword',
      body: signInFields('jon@example.com', 'jon password 1'),
    });
    const jon = signUp.body.user.id as string;
    expect(await coreCallsOf(async () => expect((await c.request('GET', '/api/me/strict')).status).toBe(200))).toEqual([
      'POST /recipe/session/verify',
    ]);

    // The app's admin revokes every session of the user (e.g. after a password leak).
    expect(await Session.revokeAllSessionsForUser(jon)).toHaveLength(1);
    expect(await sessionsInCore(jon)).toEqual([]);
    expect(answered(await c.request('GET', '/api/me/strict'))).toEqual({ status: 401, body: { message: 'unauthorised' } });
    expect(c.tokens()).toEqual({ access: undefined, refresh: undefined });
  });

  it('detects a stolen refresh token: the replayed parent revokes the session', async () => {
    const victim = client('header');
    const signUp = await victim.request('POST', '/auth/signup', {
      rid: 'emailpassword',
      body: signInFields('kim@example.com', 'kim password 1'),
    });
    const kim = signUp.body.user.id as string;
    const stolen = victim.tokens().refresh!;

    expect((await victim.refresh()).status).toBe(200);
    // Using the child's access token makes it the current one.
    const handle = await expectSignedInAs(victim, kim);

    const thief = client('header');
    thief.setTokens({ access: 'x.y.z', refresh: stolen });
    let theft!: Answer;
    expect(await coreCallsOf(async () => (theft = await thief.refresh()))).toEqual([
      'POST /recipe/session/refresh',
      'POST /recipe/session/remove',
    ]);
    expect(answered(theft)).toEqual({ status: 401, body: { message: 'token theft detected' } });
    expect(await sessionsInCore(kim)).toEqual([]);
    expect(await coreRequest('GET', `/recipe/session?sessionHandle=${handle}`)).toEqual({
      status: 'UNAUTHORISED',
      message: 'Session does not exist.',
    });

    // The victim's own tokens end with the session.
    expect(answered(await victim.refresh())).toEqual({ status: 401, body: { message: 'unauthorised' } });
  });

  it("wrote no token, password, code or link of these flows to the core's log", () => {
    const secrets = new Set<string>(
      [
        ...clients.flatMap((c) => [...c.received]),
        ...outbox.messages.flatMap((message) => [
          message.code,
          message.link && new URL(message.link).searchParams.get('token'),
          message.link && new URL(message.link).hash.slice(1),
        ]),
        ...[
          'ada password 1',
          'bea password 1',
          'cat old password',
          'testPass123',
          'eli old password',
          'hal password 1',
          'ivy password 2',
          'jon password 1',
          'kim password 1',
        ],
      ].filter((secret): secret is string => typeof secret === 'string' && secret.length >= 6),
    );
    expect(secrets.size).toBeGreaterThan(40);
    const log = core.logs.join('');
    expect(log).toContain('/recipe/session');
    // A numeric code counts only standing alone: six digits turn up by chance inside the log's timestamps and times.
    const inLog = (secret: string) => (/^\d+$/.test(secret) ? new RegExp(`(?<![\\d.])${secret}(?!\\d)`).test(log) : log.includes(secret));
    expect([...secrets].filter(inLog)).toEqual([]);
  });
});
