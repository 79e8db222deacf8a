import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebAuthn from 'supertokens-node/recipe/webauthn/index.js';
import { coreApiKey, startListeningCore, type ListeningCore } from './app/core.js';
import { startSdkApp, type SdkApp } from './app/sdk-app.js';
import { FrontendClient } from './app/client.js';
import { Outbox } from './app/outbox.js';
import { SoftAuthenticator } from '../recipes/webauthn/authenticator.js';

// The SDK's WebAuthn recipe in the real app, driven over HTTP as the frontend SDK drives it, with a software
// authenticator answering for the browser (contract-webauthn W-6).
const rpId = 'example.com';
const origin = 'https://example.com';

describe('supertokens-node WebAuthn in the app, against the core', () => {
  let core: ListeningCore;
  let app: SdkApp;
  const outbox = new Outbox();

  beforeAll(async () => {
    core = await startListeningCore();
    app = await startSdkApp({ coreUrl: core.url, apiKey: coreApiKey, outbox, webauthn: { rpId, origin } });
  });
  afterAll(async () => {
    await app?.close();
    await core?.close();
  });

  const client = () => new FrontendClient(app.url, 'header');
  const rid = 'webauthn';

  async function signUp(frontend: FrontendClient, authenticator: SoftAuthenticator, email: string) {
    const options = await frontend.request('POST', '/auth/webauthn/options/register', { body: { email }, rid });
    expect(options.body.status).toBe('OK');
    expect(options.body.rp).toEqual({ id: rpId, name: 'identity-core sdk app' });
    const credential = authenticator.register(options.body, origin);
    return frontend.request('POST', '/auth/webauthn/signup', {
      body: { webauthnGeneratedOptionsId: options.body.webauthnGeneratedOptionsId, credential, shouldTryLinkingWithSessionUser: false },
      rid,
    });
  }

  async function signIn(frontend: FrontendClient, authenticator: SoftAuthenticator) {
    const options = await frontend.request('POST', '/auth/webauthn/options/signin', { body: {}, rid });
    expect(options.body.status).toBe('OK');
    const credential = authenticator.assert(options.body.challenge, origin, rpId);
    return frontend.request('POST', '/auth/webauthn/signin', {
      body: { webauthnGeneratedOptionsId: options.body.webauthnGeneratedOptionsId, credential, shouldTryLinkingWithSessionUser: false },
      rid,
    });
  }

  async function newCredentialOptions(frontend: FrontendClient, body: Record<string, string>) {
    const options = await frontend.request('POST', '/auth/webauthn/options/register', { body, rid });
    expect(options.body.status).toBe('OK');
    return options.body;
  }

  it('signs up and in with a passkey, lists, adds and removes credentials, recovers the account and changes the email', async () => {
    const phone = new SoftAuthenticator({ alg: 'ES256', attestation: 'none' });
    const first = client();
    const signedUp = await signUp(first, phone, 'ada@example.com');
    expect(signedUp.status).toBe(200);
    expect(signedUp.body.status).toBe('OK');
    const userId: string = signedUp.body.user.id;
    expect(signedUp.body.user.loginMethods).toEqual([
      expect.objectContaining({
        recipeId: 'webauthn',
        email: 'ada@example.com',
        recipeUserId: userId,
        webauthn: { credentialIds: [phone.id] },
      }),
    ]);
    expect((await first.fetch('GET', '/api/me')).body).toMatchObject({ userId, recipeUserId: userId });

    const laptop = client();
    const signedIn = await signIn(laptop, phone);
    expect([signedIn.status, signedIn.body.status, signedIn.body.user.id]).toEqual([200, 'OK', userId]);
    expect((await laptop.fetch('GET', '/api/me')).body).toMatchObject({ userId });

    // A second passkey (RS256, packed self attestation) added from the signed-in session.
    const key = new SoftAuthenticator({ alg: 'RS256', attestation: 'packed' });
    const addOptions = await newCredentialOptions(laptop, { email: 'ada@example.com' });
    const added = await laptop.fetch('POST', '/auth/webauthn/credential', {
      body: {
        webauthnGeneratedOptionsId: addOptions.webauthnGeneratedOptionsId,
        credential: key.register(addOptions, origin),
        recipeUserId: userId,
      },
      rid,
    });
    expect(added.body).toEqual({ status: 'OK' });
    const listed = await laptop.fetch('GET', '/auth/webauthn/credential/list', { rid });
    expect(listed.body.status).toBe('OK');
    expect(listed.body.credentials.map((c: { webauthnCredentialId: string }) => c.webauthnCredentialId).sort()).toEqual(
      [phone.id, key.id].sort(),
    );
    expect((await signIn(client(), key)).body.status).toBe('OK');

    const removed = await laptop.fetch('POST', '/auth/webauthn/credential/remove', { body: { webauthnCredentialId: phone.id }, rid });
    expect(removed.body).toEqual({ status: 'OK' });
    expect((await signIn(client(), phone)).body).toEqual({ status: 'INVALID_CREDENTIALS_ERROR' });

    // Every passkey lost: the recovery mail's token registers a new one.
    const stranger = client();
    const asked = await stranger.request('POST', '/auth/user/webauthn/reset/token', {
      body: { formFields: [{ id: 'email', value: 'ada@example.com' }], email: 'ada@example.com' },
      rid,
    });
    expect(asked.body).toEqual({ status: 'OK' });
    const token = outbox.linkParam('ada@example.com', 'RECOVER_ACCOUNT', 'token');
    const replacement = new SoftAuthenticator();
    const recoverOptions = await newCredentialOptions(stranger, { recoverAccountToken: token });
    expect(recoverOptions.user.name).toBe('ada@example.com');
    const recovered = await stranger.request('POST', '/auth/user/webauthn/reset', {
      body: {
        token,
        webauthnGeneratedOptionsId: recoverOptions.webauthnGeneratedOptionsId,
        credential: replacement.register(recoverOptions, origin),
      },
      rid,
    });
    expect(recovered.body).toEqual({ status: 'OK' });
    expect((await signIn(client(), replacement)).body.user.id).toBe(userId);

    // The app changes the email through the SDK; the passkeys keep working.
    expect(await WebAuthn.updateUserEmail({ recipeUserId: userId, email: 'ada.l@example.com', tenantId: 'public' })).toEqual({
      status: 'OK',
    });
    const afterChange = await signIn(client(), key);
    expect(afterChange.body.user.emails).toEqual(['ada.l@example.com']);
    expect(app.coreCalls.map((c) => `${c.method} ${c.path}`)).toEqual(
      expect.arrayContaining([
        'POST /recipe/webauthn/options/register',
        'POST /recipe/webauthn/options/signin',
        'GET /recipe/webauthn/options',
        'POST /recipe/webauthn/signup',
        'POST /recipe/webauthn/signin',
        'POST /recipe/webauthn/user/credential/register',
        'GET /recipe/webauthn/user/credential/list',
        'DELETE /recipe/webauthn/user/credential/remove',
        'POST /recipe/webauthn/user/recover/token',
        'GET /recipe/webauthn/user/recover',
        'POST /recipe/webauthn/user/recover/token/consume',
        'PUT /recipe/webauthn/user/email',
      ]),
    );
  });

  it('refuses a second sign-up with the same email and an unknown passkey', async () => {
    await signUp(client(), new SoftAuthenticator(), 'bea@example.com');
    expect((await signUp(client(), new SoftAuthenticator(), 'bea@example.com')).body).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    expect((await signIn(client(), new SoftAuthenticator())).body).toEqual({ status: 'INVALID_CREDENTIALS_ERROR' });
  });
});
