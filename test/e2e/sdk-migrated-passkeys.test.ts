import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import express from 'express';
import supertokens from 'supertokens-node';
import { errorHandler, middleware, type SessionRequest } from 'supertokens-node/framework/express/index.js';
import Session from 'supertokens-node/recipe/session/index.js';
import { verifySession } from 'supertokens-node/recipe/session/framework/express/index.js';
import EmailPassword from 'supertokens-node/recipe/emailpassword/index.js';
import UserMetadata from 'supertokens-node/recipe/usermetadata/index.js';
import MultiFactorAuth from 'supertokens-node/recipe/multifactorauth/index.js';
import AccountLinking from 'supertokens-node/recipe/accountlinking/index.js';
import WebAuthn from 'supertokens-node/recipe/webauthn/index.js';
import { FrontendClient } from './app/client.js';
import { SoftAuthenticator } from '../recipes/webauthn/authenticator.js';
import { keycloakPbkdf2Credential, keycloakRealm } from '../cli/carry/exports.js';
import { makeTempDir } from '../cli/fixtures.js';
import { apiKey, migrateArgs, runCommand, startCore, type RunningCore } from '../cli/harness.js';

// Passkeys carried from a Keycloak realm export by the real migration command, then used through the app a customer
// builds on supertokens-node (EmailPassword, WebAuthn, MultiFactorAuth with webauthn as a factor), driven over HTTP
// as the frontend SDK drives it: the same private key signs in under the old Keycloak user id, and a password user's
// passkey completes the second factor (contract-webauthn W-4, W-6).
const rpId = 'example.com';
const origin = 'https://example.com';
const rid = 'webauthn';
const b64 = (bytes: Buffer) => bytes.toString('base64');
const b64url = (bytes: Buffer) => bytes.toString('base64url');

function credentialData(authenticator: SoftAuthenticator) {
  return JSON.stringify({
    aaguid: '00000000-0000-0000-0000-000000000000',
    credentialId: b64(authenticator.credentialId),
    credentialPublicKey: b64url(authenticator.coseKey()),
    counter: 3,
    attestationStatementFormat: 'none',
    transports: ['internal'],
  });
}

describe('passkeys migrated from Keycloak sign in through the app', () => {
  const temp = makeTempDir();
  let core: RunningCore;
  let server: http.Server;
  let appUrl: string;
  const only = new SoftAuthenticator({ counterStep: 1 });
  const second = new SoftAuthenticator({ alg: 'RS256', counterStep: 1 });
  const onlyId = crypto.randomUUID();
  const secondId = crypto.randomUUID();

  beforeAll(async () => {
    core = await startCore({ webauthn_rp_ids: rpId });
    server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    supertokens.init({
      framework: 'express',
      supertokens: { connectionURI: core.url, apiKey },
      appInfo: { appName: 'Example', apiDomain: appUrl, websiteDomain: appUrl, apiBasePath: '/auth', websiteBasePath: '/auth' },
      recipeList: [
        EmailPassword.init(),
        WebAuthn.init({ getRelyingPartyId: rpId, getRelyingPartyName: 'Example', getOrigin: async () => origin }),
        Session.init({ getTokenTransferMethod: () => 'header' }),
        UserMetadata.init(),
        // The SDK's MFA needs account linking; a factor is linked to the session's user only.
        AccountLinking.init({
          shouldDoAutomaticAccountLinking: async (_account, _user, session) =>
            session === undefined
              ? { shouldAutomaticallyLink: false }
              : { shouldAutomaticallyLink: true, shouldRequireVerification: false },
        }),
        MultiFactorAuth.init({ firstFactors: ['emailpassword', 'webauthn'] }),
      ],
      telemetry: false,
    });
    const app = express();
    app.set('etag', false);
    app.use(middleware());
    app.get('/api/me', verifySession(), (request: SessionRequest, response) => response.json({ userId: request.session!.getUserId() }));
    app.use(errorHandler());
    app.use((error: Error, _request: express.Request, response: express.Response, _next: express.NextFunction) => {
      response.status(500).json({ message: error.message });
    });
    server.on('request', app);

    // Keycloak's user handle: the UTF-8 bytes of the user's id.
    only.userHandle = b64url(Buffer.from(onlyId));
    second.userHandle = b64url(Buffer.from(secondId));
    const realm = keycloakRealm([
      {
        id: onlyId,
        username: 'pia',
        email: 'pia@example.com',
        emailVerified: true,
        enabled: true,
        createdTimestamp: 1700000000000,
        credentials: [
          { type: 'webauthn-passwordless', userLabel: 'Phone', createdDate: 1700000001000, credentialData: credentialData(only) },
        ],
      },
      {
        id: secondId,
        username: 'sam',
        email: 'sam@example.com',
        emailVerified: true,
        enabled: true,
        createdTimestamp: 1700000000000,
        credentials: [
          keycloakPbkdf2Credential('sam-password'),
          { type: 'webauthn', userLabel: 'Key', createdDate: 1700000001000, credentialData: credentialData(second) },
        ],
      },
    ]);
    const result = await runCommand(migrateArgs(core, 'keycloak', temp.file('realm.json', realm), '--rp-id', rpId));
    expect(result.code, result.stdout).toBe(0);
    // Keycloak stored counter 3; the authenticator's next assertion must be above it.
    only.counter = 3;
    second.counter = 3;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    await core?.t.close();
    temp.remove();
  });

  async function passkeySignIn(frontend: FrontendClient, authenticator: SoftAuthenticator, linkWithSession: boolean) {
    const options = await frontend.request('POST', '/auth/webauthn/options/signin', { body: {}, rid });
    expect(options.body.status).toBe('OK');
    const credential = authenticator.assert(options.body.challenge, origin, rpId);
    return frontend.request('POST', '/auth/webauthn/signin', {
      body: {
        webauthnGeneratedOptionsId: options.body.webauthnGeneratedOptionsId,
        credential,
        shouldTryLinkingWithSessionUser: linkWithSession,
      },
      rid,
    });
  }

  const mfaClaim = (frontend: FrontendClient) => frontend.frontToken?.up['st-mfa'];

  it('a passkey-only user signs in with the same private key and reaches the protected route as the Keycloak id', async () => {
    const frontend = new FrontendClient(appUrl, 'header');
    const signedIn = await passkeySignIn(frontend, only, false);
    expect([signedIn.status, signedIn.body.status, signedIn.body.user?.id]).toEqual([200, 'OK', onlyId]);
    expect(signedIn.body.user.loginMethods.map((method: { recipeId: string }) => method.recipeId)).toEqual(['webauthn']);
    const me = await frontend.fetch('GET', '/api/me');
    expect([me.status, me.body.userId]).toEqual([200, onlyId]);
    // A passkey is a first factor here: nothing more is asked.
    expect(mfaClaim(frontend)).toEqual({ c: { webauthn: expect.any(Number) }, v: true });
  });

  it('a password user is stopped at MFA and completes the second factor with the carried passkey', async () => {
    const frontend = new FrontendClient(appUrl, 'header');
    const signedIn = await frontend.request('POST', '/auth/signin', {
      body: {
        formFields: [
          { id: 'email', value: 'sam@example.com' },
          { id: 'password', value: 'sam-password' },
        ],
      },
      rid: 'emailpassword',
    });
    expect([signedIn.status, signedIn.body.status, signedIn.body.user?.id]).toEqual([200, 'OK', secondId]);
    expect(mfaClaim(frontend)).toEqual({ c: { emailpassword: expect.any(Number) }, v: false });
    const stopped = await frontend.request('GET', '/api/me');
    expect(stopped.status).toBe(403);
    expect(stopped.body.claimValidationErrors?.[0]?.id).toBe('st-mfa');

    const info = await frontend.request('PUT', '/auth/mfa/info', { rid: 'multifactorauth' });
    expect(info.body.status).toBe('OK');
    expect(info.body.factors.next).toEqual(['webauthn']);

    // The second factor: the passkey sign-in with the session, as the frontend's MFA page sends it.
    const factor = await passkeySignIn(frontend, second, true);
    expect([factor.status, factor.body.status, factor.body.user?.id], JSON.stringify(factor.body)).toEqual([200, 'OK', secondId]);
    expect(mfaClaim(frontend)).toEqual({ c: { emailpassword: expect.any(Number), webauthn: expect.any(Number) }, v: true });
    const me = await frontend.fetch('GET', '/api/me');
    expect([me.status, me.body.userId]).toEqual([200, secondId]);
  });
});
