import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import express from 'express';
import supertokens from 'supertokens-node';
import { errorHandler, middleware, type SessionRequest } from 'supertokens-node/framework/express/index.js';
import Session from 'supertokens-node/recipe/session/index.js';
import { verifySession } from 'supertokens-node/recipe/session/framework/express/index.js';
import EmailPassword from 'supertokens-node/recipe/emailpassword/index.js';
import Passwordless from 'supertokens-node/recipe/passwordless/index.js';
import UserMetadata from 'supertokens-node/recipe/usermetadata/index.js';
import MultiFactorAuth from 'supertokens-node/recipe/multifactorauth/index.js';
import AccountLinking from 'supertokens-node/recipe/accountlinking/index.js';
import WebAuthn from 'supertokens-node/recipe/webauthn/index.js';
import { FrontendClient } from './client.js';
import { Outbox } from './outbox.js';
import type { SoftAuthenticator } from '../../recipes/webauthn/authenticator.js';
import { apiKey, runCommand, migrateArgs, startCore, type RunningCore } from '../../cli/harness.js';

// The app a customer builds on supertokens-node after moving passkeys in with the migration command: EmailPassword,
// Passwordless (email code), WebAuthn with the relying-party id the passkeys were made for, and MultiFactorAuth with
// webauthn as a factor; driven over HTTP as the frontend SDK drives it. One app per test file: the SDK is a process
// singleton.

export const rpId = 'example.com';
export const origin = 'https://example.com';
export const b64 = (bytes: Buffer) => bytes.toString('base64');
export const b64url = (bytes: Buffer) => bytes.toString('base64url');

export interface PasskeyApp {
  core: RunningCore;
  url: string;
  outbox: Outbox;
  /** Runs `identity-core migrate <source> <file> …` against the app's core and expects it to succeed. */
  migrate(source: string, file: string, ...extra: string[]): Promise<void>;
  close(): Promise<void>;
}

export async function startPasskeyApp(): Promise<PasskeyApp> {
  const core = await startCore({ webauthn_rp_ids: rpId });
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const outbox = new Outbox();
  supertokens.init({
    framework: 'express',
    supertokens: { connectionURI: core.url, apiKey },
    appInfo: { appName: 'Example', apiDomain: url, websiteDomain: url, apiBasePath: '/auth', websiteBasePath: '/auth' },
    recipeList: [
      EmailPassword.init(),
      Passwordless.init({
        contactMethod: 'EMAIL',
        flowType: 'USER_INPUT_CODE',
        emailDelivery: {
          override: (original) => ({
            ...original,
            sendEmail: async (input) => outbox.push({ channel: 'email', to: input.email, type: input.type, code: input.userInputCode }),
          }),
        },
      }),
      WebAuthn.init({ getRelyingPartyId: rpId, getRelyingPartyName: 'Example', getOrigin: async () => origin }),
      Session.init({ getTokenTransferMethod: () => 'header' }),
      UserMetadata.init(),
      // The SDK's MFA needs account linking; a factor is linked to the session's user only.
      AccountLinking.init({
        shouldDoAutomaticAccountLinking: async (_account, _user, session) =>
          session === undefined ? { shouldAutomaticallyLink: false } : { shouldAutomaticallyLink: true, shouldRequireVerification: false },
      }),
      MultiFactorAuth.init({ firstFactors: ['emailpassword', 'otp-email', 'webauthn'] }),
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
  return {
    core,
    url,
    outbox,
    migrate: async (source, file, ...extra) => {
      const result = await runCommand(migrateArgs(core, source, file, ...extra));
      expect(result.code, result.stdout + result.stderr).toBe(0);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await core.t.close();
    },
  };
}

/** The passkey sign-in the frontend SDK makes: options, the authenticator's assertion, then the sign-in. */
export async function passkeySignIn(frontend: FrontendClient, authenticator: SoftAuthenticator, linkWithSession: boolean) {
  const options = await frontend.request('POST', '/auth/webauthn/options/signin', { body: {}, rid: 'webauthn' });
  expect(options.body.status).toBe('OK');
  const credential = authenticator.assert(options.body.challenge, origin, rpId);
  return frontend.request('POST', '/auth/webauthn/signin', {
    body: {
      webauthnGeneratedOptionsId: options.body.webauthnGeneratedOptionsId,
      credential,
      shouldTryLinkingWithSessionUser: linkWithSession,
    },
    rid: 'webauthn',
  });
}

const mfaClaim = (frontend: FrontendClient) => frontend.frontToken?.up['st-mfa'];
const recipeIds = (user: { loginMethods: { recipeId: string }[] }) => user.loginMethods.map((method) => method.recipeId).sort();

/**
 * A passkey signs in alone, as the first factor, under the old user id and reaches the protected route; nothing more is
 * asked. `loginMethods`: the user's methods after the move (a source may carry an email code beside the passkey).
 */
export async function expectPasskeySignIn(app: PasskeyApp, authenticator: SoftAuthenticator, userId: string, loginMethods = ['webauthn']) {
  const frontend = new FrontendClient(app.url, 'header');
  const signedIn = await passkeySignIn(frontend, authenticator, false);
  expect([signedIn.status, signedIn.body.status, signedIn.body.user?.id], JSON.stringify(signedIn.body)).toEqual([200, 'OK', userId]);
  expect(recipeIds(signedIn.body.user)).toEqual([...loginMethods].sort());
  const me = await frontend.fetch('GET', '/api/me');
  expect([me.status, me.body.userId]).toEqual([200, userId]);
  expect(mfaClaim(frontend)).toEqual({ c: { webauthn: expect.any(Number) }, v: true });
}

export type FirstFactor = { factor: 'emailpassword'; email: string; password: string } | { factor: 'otp-email'; email: string };

async function signInWithFirstFactor(app: PasskeyApp, frontend: FrontendClient, first: FirstFactor) {
  if (first.factor === 'emailpassword') {
    const formFields = [
      { id: 'email', value: first.email },
      { id: 'password', value: first.password },
    ];
    return frontend.request('POST', '/auth/signin', { body: { formFields }, rid: 'emailpassword' });
  }
  const created = await frontend.request('POST', '/auth/signinup/code', { body: { email: first.email }, rid: 'passwordless' });
  expect(created.body.status).toBe('OK');
  const { deviceId, preAuthSessionId } = created.body;
  const userInputCode = app.outbox.last(first.email, 'PASSWORDLESS_LOGIN').code;
  return frontend.request('POST', '/auth/signinup/code/consume', {
    body: { deviceId, preAuthSessionId, userInputCode },
    rid: 'passwordless',
  });
}

/**
 * The first factor signs in under the old user id and is stopped at MFA with webauthn next; the carried passkey
 * completes the second factor, and the protected route answers.
 */
export async function expectPasskeySecondFactor(app: PasskeyApp, first: FirstFactor, authenticator: SoftAuthenticator, userId: string) {
  const frontend = new FrontendClient(app.url, 'header');
  const signedIn = await signInWithFirstFactor(app, frontend, first);
  expect([signedIn.status, signedIn.body.status, signedIn.body.user?.id], JSON.stringify(signedIn.body)).toEqual([200, 'OK', userId]);
  expect(mfaClaim(frontend)).toEqual({ c: { [first.factor]: expect.any(Number) }, v: false });
  const stopped = await frontend.request('GET', '/api/me');
  expect(stopped.status).toBe(403);
  expect(stopped.body.claimValidationErrors?.[0]?.id).toBe('st-mfa');
  const info = await frontend.request('PUT', '/auth/mfa/info', { rid: 'multifactorauth' });
  expect([info.body.status, info.body.factors?.next]).toEqual(['OK', ['webauthn']]);

  // The second factor: the passkey sign-in with the session, as the frontend's MFA page sends it.
  const factor = await passkeySignIn(frontend, authenticator, true);
  expect([factor.status, factor.body.status, factor.body.user?.id], JSON.stringify(factor.body)).toEqual([200, 'OK', userId]);
  expect(mfaClaim(frontend)).toEqual({ c: { [first.factor]: expect.any(Number), webauthn: expect.any(Number) }, v: true });
  const me = await frontend.fetch('GET', '/api/me');
  expect([me.status, me.body.userId]).toEqual([200, userId]);
}
