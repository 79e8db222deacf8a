import bcryptjs from 'bcryptjs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreApiKey, startListeningCore, type ListeningCore } from '../e2e/app/core.js';
import { Outbox } from '../e2e/app/outbox.js';
import { startSdkApp, type SdkApp } from '../e2e/app/sdk-app.js';
import { bundlePage, chromiumArgs, chromiumPath, flowRunner } from './harness.js';

// One user, one real browser: headless Chromium loads a page built on the official frontend SDK
// (supertokens-web-js, bundled here with esbuild), which signs a user imported by bcrypt hash in through the app,
// reads a protected API with the session cookie, lives through an access-token expiry (refreshed by the SDK on its
// own) and signs out. The app is the real supertokens-node app of test/e2e/app and the core is real.
if (!chromiumPath) console.warn('browser test skipped: no chromium found; run scripts/install-test-tools.sh (needs apt-get)');

const accessTokenValiditySeconds = 2;

interface Flows {
  signIn(email: string, password: string): Promise<{ status: string; userId?: string }>;
  me(): Promise<{ status: number; body: any }>;
  doesSessionExist(): Promise<boolean>;
  getUserId(): Promise<string>;
  getAccessTokenPayload(): Promise<Record<string, unknown>>;
  signOut(): Promise<void>;
}
const run = flowRunner<Flows>();

describe.skipIf(!chromiumPath)('a browser on the official frontend SDK, through the app, against the core', () => {
  let core: ListeningCore;
  let app: SdkApp;
  let browser: Browser;
  let bundle: { dir: string; remove(): void } | undefined;

  beforeAll(async () => {
    bundle = await bundlePage('main.ts');
    core = await startListeningCore({ access_token_validity: accessTokenValiditySeconds });
    app = await startSdkApp({ coreUrl: core.url, apiKey: coreApiKey, outbox: new Outbox(), staticDir: bundle.dir });
    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await core?.close();
    bundle?.remove();
  });

  it('signs an imported user in, reads the API with the cookie, refreshes after expiry and signs out', async () => {
    const imported = await fetch(`${core.url}/recipe/user/passwordhash/import`, {
      method: 'POST',
      headers: { 'api-key': coreApiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'grace@example.com', passwordHash: bcryptjs.hashSync('grace old password', 4) }),
    });
    const userId = ((await imported.json()) as { user: { id: string } }).user.id;

    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${app.url}/index.html`);
    await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });

    expect(await run(page, 'doesSessionExist')).toBe(false);
    expect(await run(page, 'signIn', 'grace@example.com', 'wrong password')).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect(await run(page, 'signIn', 'grace@example.com', 'grace old password')).toEqual({ status: 'OK', userId });
    expect(await run(page, 'doesSessionExist')).toBe(true);
    expect(await run(page, 'getUserId')).toBe(userId);

    // The session travels in cookies the page's script cannot read; the front token it can.
    const cookies = Object.fromEntries((await context.cookies()).map((cookie) => [cookie.name, cookie]));
    expect(cookies.sAccessToken).toMatchObject({ httpOnly: true, path: '/' });
    expect(cookies.sRefreshToken).toMatchObject({ httpOnly: true, path: '/auth/session/refresh' });
    expect(await page.evaluate(() => document.cookie)).not.toContain('sAccessToken');
    const me = await run(page, 'me');
    expect(me).toEqual({ status: 200, body: { userId, recipeUserId: userId, sessionHandle: expect.stringMatching(/^[0-9a-f-]{36}$/) } });

    // Read right before waiting (on a slow machine the SDK may already have refreshed once by now).
    const payload = await run(page, 'getAccessTokenPayload');
    expect(payload).toMatchObject({
      sub: userId,
      rsub: userId,
      tId: 'public',
      iss: `${app.url}/auth`,
      sessionHandle: me.body.sessionHandle,
    });
    expect((payload.exp as number) - (payload.iat as number)).toBeLessThanOrEqual(accessTokenValiditySeconds);
    const accessTokenBefore = (await context.cookies()).find((cookie) => cookie.name === 'sAccessToken')?.value;

    // Past the access token's expiry: the API answers 401, the SDK refreshes and retries, the page sees 200.
    const requestsBefore = app.requests.length;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, (payload.exp as number) * 1000 - Date.now() + 300)));
    expect(await run(page, 'me')).toEqual(me);
    expect(app.requests.slice(requestsBefore)).toEqual(['GET /api/me 401', 'POST /auth/session/refresh 200', 'GET /api/me 200']);
    const refreshedCookie = (await context.cookies()).find((cookie) => cookie.name === 'sAccessToken');
    expect(refreshedCookie?.value).not.toBe(accessTokenBefore);

    await run(page, 'signOut');
    expect(await run(page, 'doesSessionExist')).toBe(false);
    expect(
      (await context.cookies()).map((cookie) => cookie.name).filter((name) => ['sAccessToken', 'sRefreshToken'].includes(name)),
    ).toEqual([]);
    expect(await run(page, 'me')).toEqual({ status: 401, body: { message: 'unauthorised' } });
    // The core holds no session of the user any more.
    const sessions = await fetch(`${core.url}/public/recipe/session/user?userId=${userId}`, { headers: { 'api-key': coreApiKey } });
    expect(await sessions.json()).toEqual({ status: 'OK', sessionHandles: [] });
    await context.close();
  });
});
