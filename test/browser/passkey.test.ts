import crypto from 'node:crypto';
import net from 'node:net';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreApiKey, startListeningCore, type ListeningCore } from '../e2e/app/core.js';
import { Outbox } from '../e2e/app/outbox.js';
import { startSdkApp, type SdkApp } from '../e2e/app/sdk-app.js';
import { bundlePage, chromiumArgs, chromiumPath, flowRunner } from './harness.js';
import type { PasskeyAnswer } from './page/passkey.js';

// A passkey in a real browser: headless Chromium with its virtual authenticator (DevTools protocol
// WebAuthn.addVirtualAuthenticator: a CTAP2 platform authenticator keeping discoverable credentials, verifying the
// user) loads a page on supertokens-web-js' WebAuthn recipe, registers a passkey and signs in with it through the
// real supertokens-node app of test/e2e/app and the core. The relying party is `localhost`, the page's host: a
// browser refuses an IP address as RP ID. The core is configured for exactly that RP ID and the page's origin.
if (!chromiumPath) console.warn('passkey browser test skipped: no chromium found; run scripts/install-test-tools.sh (needs apt-get)');

interface Flows {
  signUp(email: string): Promise<PasskeyAnswer>;
  signIn(): Promise<PasskeyAnswer>;
  me(): Promise<{ status: number; body: any }>;
  doesSessionExist(): Promise<boolean>;
  signOut(): Promise<void>;
}
const run = flowRunner<Flows>();
const rpId = 'localhost';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId: string;
  userHandle?: string;
  signCount: number;
}

/** A page with a fresh virtual authenticator of its own (the DevTools protocol's bytes are standard base64). */
async function pageWithAuthenticator(context: BrowserContext, appUrl: string) {
  const page = await context.newPage();
  const cdp: CDPSession = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  await page.goto(`${appUrl}/index.html`);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  return {
    page,
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials as VirtualCredential[],
    addCredential: (credential: VirtualCredential & { privateKey: string }) =>
      cdp.send('WebAuthn.addCredential', { authenticatorId, credential }),
  };
}

const newPrivateKey = () =>
  crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64');
const base64url = (base64: string) => Buffer.from(base64, 'base64').toString('base64url');

describe.skipIf(!chromiumPath)('a passkey in Chromium on the official frontend SDK, through the app, against the core', () => {
  let core: ListeningCore;
  let app: SdkApp;
  let browser: Browser;
  let bundle: { dir: string; remove(): void } | undefined;

  beforeAll(async () => {
    bundle = await bundlePage('passkey.ts');
    const port = await freePort();
    const origin = `http://${rpId}:${port}`;
    core = await startListeningCore({ webauthn_rp_ids: rpId, webauthn_origins: origin });
    app = await startSdkApp({
      coreUrl: core.url,
      apiKey: coreApiKey,
      outbox: new Outbox(),
      staticDir: bundle.dir,
      host: rpId,
      port,
      webauthn: { rpId },
    });
    expect(app.url).toBe(origin);
    // localhost always goes to the loopback address the app listens on.
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [...chromiumArgs, '--host-resolver-rules=MAP localhost 127.0.0.1'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await core?.close();
    bundle?.remove();
  });

  async function listedCredentialIds(recipeUserId: string): Promise<string[]> {
    const response = await fetch(`${core.url}/recipe/webauthn/user/credential/list?recipeUserId=${recipeUserId}`, {
      headers: { 'api-key': coreApiKey },
    });
    const body = (await response.json()) as { credentials: { webauthnCredentialId: string; relyingPartyId: string }[] };
    return body.credentials.map((credential) => `${credential.relyingPartyId} ${credential.webauthnCredentialId}`);
  }

  async function expectNoSession(page: Page) {
    expect(await run(page, 'doesSessionExist')).toBe(false);
    expect(await run(page, 'me')).toEqual({ status: 401, body: { message: 'unauthorised' } });
  }

  it('registers a passkey, signs in with it, and refuses an absent, an unknown and a wrongly keyed credential', async () => {
    const context = await browser.newContext();
    const phone = await pageWithAuthenticator(context, app.url);
    await expectNoSession(phone.page);

    // Registration: options from the core, navigator.credentials.create() on the virtual authenticator, sign-up.
    const signedUp = await run(phone.page, 'signUp', 'ada@example.com');
    expect(signedUp).toEqual({ status: 'OK', userId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const userId = signedUp.userId!;
    const [made] = await phone.credentials();
    expect(made).toMatchObject({ rpId, isResidentCredential: true });
    expect(await listedCredentialIds(userId)).toEqual([`${rpId} ${base64url(made.credentialId)}`]);
    expect(await run(phone.page, 'me')).toEqual({
      status: 200,
      body: { userId, recipeUserId: userId, sessionHandle: expect.stringMatching(/^[0-9a-f-]{36}$/) },
    });
    await run(phone.page, 'signOut');
    await expectNoSession(phone.page);

    // Sign-in with the discoverable credential: no email typed, the assertion names the credential.
    const callsBefore = app.coreCalls.length;
    expect(await run(phone.page, 'signIn')).toEqual({ status: 'OK', userId });
    expect(app.coreCalls.slice(callsBefore).map((call) => `${call.method} ${call.path}`)).toEqual(
      expect.arrayContaining(['POST /recipe/webauthn/options/signin', 'POST /recipe/webauthn/signin', 'POST /recipe/session']),
    );
    expect(await run(phone.page, 'doesSessionExist')).toBe(true);
    const me = await run(phone.page, 'me');
    expect([me.status, me.body.userId, me.body.recipeUserId]).toEqual([200, userId, userId]);
    // The authenticator counted the assertion, and the core stored the counter it signed.
    const [used] = await phone.credentials();
    expect(used.signCount).toBeGreaterThan(made.signCount);
    const { rows } = await core.db.pool.query<{ counter: string; last_used_at: string | null }>(
      'SELECT counter, last_used_at FROM webauthn_credentials WHERE rp_id = $1 AND credential_id = $2',
      [rpId, base64url(made.credentialId)],
    );
    expect([Number(rows[0].counter), rows[0].last_used_at !== null]).toEqual([used.signCount, true]);
    await context.close();

    // Another device with no passkey for this site: the browser finds nothing to sign with, no session.
    const other = await browser.newContext();
    const empty = await pageWithAuthenticator(other, app.url);
    expect(await run(empty.page, 'signIn')).toMatchObject({ status: 'FAILED_TO_AUTHENTICATE_USER', error: 'NotAllowedError' });
    await expectNoSession(empty.page);
    await other.close();

    // A passkey the core never registered: the core knows no such credential, the app refuses the sign-in.
    const stranger = await browser.newContext();
    const unknown = await pageWithAuthenticator(stranger, app.url);
    await unknown.addCredential({
      credentialId: crypto.randomBytes(32).toString('base64'),
      isResidentCredential: true,
      rpId,
      userHandle: made.userHandle!,
      privateKey: newPrivateKey(),
      signCount: 0,
    });
    expect(await run(unknown.page, 'signIn')).toEqual({ status: 'INVALID_CREDENTIALS_ERROR' });
    await expectNoSession(unknown.page);
    await stranger.close();

    // The registered credential id with another private key (and a higher counter): the signature does not verify.
    const forger = await browser.newContext();
    const forged = await pageWithAuthenticator(forger, app.url);
    await forged.addCredential({
      credentialId: made.credentialId,
      isResidentCredential: true,
      rpId,
      userHandle: made.userHandle!,
      privateKey: newPrivateKey(),
      signCount: used.signCount + 10,
    });
    expect(await run(forged.page, 'signIn')).toEqual({ status: 'INVALID_CREDENTIALS_ERROR' });
    await expectNoSession(forged.page);
    await forger.close();

    // Neither refusal touched the real credential.
    const { rows: after } = await core.db.pool.query<{ counter: string }>(
      'SELECT counter FROM webauthn_credentials WHERE rp_id = $1 AND credential_id = $2',
      [rpId, base64url(made.credentialId)],
    );
    expect(Number(after[0].counter)).toBe(used.signCount);
  });
});
