import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import supertokens from 'supertokens-node';
import Multitenancy from 'supertokens-node/recipe/multitenancy/index.js';
import { coreApiKey, startListeningCore, type ListeningCore } from './app/core.js';
import { startFakeOAuthProvider, type FakeOAuthProvider } from './app/fake-oauth.js';
import { startSdkApp, thirdPartyId, type SdkApp } from './app/sdk-app.js';
import { FrontendClient } from './app/client.js';
import { Outbox } from './app/outbox.js';

// supertokens-node's Multitenancy recipe against the core (contract-multitenancy T-6 items 1, 3 and 4): the tenant
// lifecycle, the public tenant's provider config read from the core by a third-party sign-in against the loopback
// OpenID provider, one email as two users in two tenants, and associations. The app configures fake-oidc only partly.
describe('supertokens-node Multitenancy in the app, against the core', () => {
  let core: ListeningCore;
  let oauth: FakeOAuthProvider;
  let app: SdkApp;

  beforeAll(async () => {
    core = await startListeningCore({ log_level: 'DEBUG' });
    oauth = await startFakeOAuthProvider();
    app = await startSdkApp({ coreUrl: core.url, apiKey: coreApiKey, outbox: new Outbox(), oauth, clientsFromCore: true });
  });
  afterAll(async () => {
    await app?.close();
    await oauth?.close();
    await core?.close();
  });

  const providerConfig = () => ({
    thirdPartyId,
    clients: [{ clientId: oauth.clientId, clientSecret: oauth.clientSecret, scope: ['openid', 'email', 'profile'] }],
  });

  it('creates, reads, lists, configures and deletes a tenant', async () => {
    expect(await Multitenancy.createOrUpdateTenant('acme', { firstFactors: ['emailpassword', 'thirdparty'] })).toEqual({
      status: 'OK',
      createdNew: true,
    });
    expect(await Multitenancy.createOrUpdateTenant('acme', { firstFactors: ['emailpassword', 'thirdparty'] })).toEqual({
      status: 'OK',
      createdNew: false,
    });
    expect(await Multitenancy.createOrUpdateThirdPartyConfig('acme', providerConfig())).toEqual({ status: 'OK', createdNew: true });
    expect(await Multitenancy.getTenant('acme')).toEqual({
      status: 'OK',
      tenantId: 'acme',
      firstFactors: ['emailpassword', 'thirdparty'],
      thirdParty: { providers: [{ ...providerConfig(), userInfoMap: { fromIdTokenPayload: {}, fromUserInfoAPI: {} } }] },
      coreConfig: {},
    });
    await Multitenancy.createOrUpdateTenant('globex', { firstFactors: ['emailpassword'] });
    const listed = await Multitenancy.listAllTenants();
    expect(listed.status).toBe('OK');
    expect(listed.tenants.map((tenant) => tenant.tenantId)).toEqual(['public', 'acme', 'globex']);

    expect(await Multitenancy.deleteTenant('acme')).toEqual({ status: 'OK', didExist: true });
    expect(await Multitenancy.deleteTenant('acme')).toEqual({ status: 'OK', didExist: false });
    expect(await Multitenancy.getTenant('acme')).toBeUndefined();
    expect((await core.db.pool.query("SELECT count(*)::int AS n FROM tenant_thirdparty_providers WHERE tenant_id = 'acme'")).rows).toEqual([
      { n: 0 },
    ]);
  });

  it("signs in through the provider with the clients the core's public tenant holds", async () => {
    const redirectURIOnProviderDashboard = `${app.url}/auth/callback/${thirdPartyId}`;
    const frontend = new FrontendClient(app.url, 'header');
    const authorisationUrl = () =>
      frontend.request(
        'GET',
        `/auth/authorisationurl?thirdPartyId=${thirdPartyId}&redirectURIOnProviderDashboard=${encodeURIComponent(redirectURIOnProviderDashboard)}`,
        { rid: 'thirdparty' },
      );
    // Without the core's config the app's provider has no client to sign in with.
    expect((await authorisationUrl()).body.status).not.toBe('OK');

    expect(await Multitenancy.createOrUpdateThirdPartyConfig('public', providerConfig())).toEqual({ status: 'OK', createdNew: true });
    oauth.addAccount({ sub: 'oidc-mt', email: 'mia@example.com', email_verified: true, name: 'Mia' });
    const start = await authorisationUrl();
    expect(start.body).toEqual({ status: 'OK', urlWithQueryParams: expect.any(String), pkceCodeVerifier: expect.any(String) });
    const authorize = new URL(start.body.urlWithQueryParams);
    // The discovery endpoint came from the app, the client from the core.
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${oauth.issuer}/authorize`);
    expect(authorize.searchParams.get('client_id')).toBe(oauth.clientId);
    expect(authorize.searchParams.get('scope')).toBe('openid email profile');
    authorize.searchParams.set('state', 'state-from-the-frontend');
    authorize.searchParams.set('login_hint', 'oidc-mt');
    const redirect = await fetch(authorize, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const back = new URL(redirect.headers.get('location')!);
    const signedIn = await frontend.request('POST', '/auth/signinup', {
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
    // The token request carried the core's client secret: the provider accepts no other.
    expect(signedIn.body).toMatchObject({
      status: 'OK',
      createdNewRecipeUser: true,
      user: { emails: ['mia@example.com'], thirdParty: [{ id: thirdPartyId, userId: 'oidc-mt' }], tenantIds: ['public'] },
    });
    expect(oauth.requests).toContain('POST /token');
  });

  const fields = (email: string, password: string) => ({
    formFields: [
      { id: 'email', value: email },
      { id: 'password', value: password },
    ],
  });
  const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
  // A sign-up or sign-in through the app under /auth/<tenant>/, as the frontend SDK sends it for a tenant.
  const signInAs = async (tenant: string, action: 'signup' | 'signin', email: string, password: string) => {
    const frontend = new FrontendClient(app.url, 'header');
    const answer = await frontend.request('POST', `/auth/${tenant}/${action}`, { rid: 'emailpassword', body: fields(email, password) });
    return { answer, tId: frontend.tokens().access ? claimsOf(frontend.tokens().access!).tId : undefined };
  };

  it('keeps one email in two tenants as two users, each password working only in its own tenant (T-6 item 3)', async () => {
    for (const tenant of ['iso-a', 'iso-b']) await Multitenancy.createOrUpdateTenant(tenant, { firstFactors: ['emailpassword'] });
    const inA = await signInAs('iso-a', 'signup', 'ann@x.com', 'password-of-a1');
    const inB = await signInAs('iso-b', 'signup', 'ann@x.com', 'password-of-b1');
    expect([inA.answer.body.status, inB.answer.body.status]).toEqual(['OK', 'OK']);
    expect(inA.answer.body.user.id).not.toBe(inB.answer.body.user.id);
    expect([inA.tId, inB.tId]).toEqual(['iso-a', 'iso-b']);
    expect([inA.answer.body.user.tenantIds, inB.answer.body.user.tenantIds]).toEqual([['iso-a'], ['iso-b']]);

    const again = await signInAs('iso-a', 'signin', 'ann@x.com', 'password-of-a1');
    expect([again.answer.body.user.id, again.tId]).toEqual([inA.answer.body.user.id, 'iso-a']);
    expect((await signInAs('iso-a', 'signin', 'ann@x.com', 'password-of-b1')).answer.body).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect((await signInAs('iso-b', 'signin', 'ann@x.com', 'password-of-a1')).answer.body).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect((await signInAs('public', 'signin', 'ann@x.com', 'password-of-a1')).answer.body).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    const inBAgain = await signInAs('iso-b', 'signin', 'ann@x.com', 'password-of-b1');
    expect([inBAgain.answer.body.user.id, inBAgain.tId]).toEqual([inB.answer.body.user.id, 'iso-b']);
  });

  it('associates users with a tenant through the SDK, one email once (T-6 item 4)', async () => {
    await Multitenancy.createOrUpdateTenant('assoc', { firstFactors: ['emailpassword'] });
    await Multitenancy.createOrUpdateTenant('other', { firstFactors: ['emailpassword'] });
    const bob = (await signInAs('public', 'signup', 'bob@x.com', 'bob-password-1')).answer.body.user.id as string;
    const twin = (await signInAs('other', 'signup', 'bob@x.com', 'twin-password-1')).answer.body.user.id as string;
    const recipeUserId = (id: string) => supertokens.convertToRecipeUserId(id);
    expect(await Multitenancy.associateUserToTenant('assoc', recipeUserId(bob))).toEqual({ status: 'OK', wasAlreadyAssociated: false });
    expect(await Multitenancy.associateUserToTenant('assoc', recipeUserId(twin))).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    const signedIn = await signInAs('assoc', 'signin', 'bob@x.com', 'bob-password-1');
    expect([signedIn.answer.body.user.id, signedIn.tId]).toEqual([bob, 'assoc']);
    expect(await Multitenancy.disassociateUserFromTenant('assoc', recipeUserId(bob))).toEqual({ status: 'OK', wasAssociated: true });

    // Twenty concurrent associations of the two users with one email: exactly one gets in.
    await Multitenancy.createOrUpdateTenant('race', { firstFactors: ['emailpassword'] });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) => Multitenancy.associateUserToTenant('race', recipeUserId(n % 2 === 0 ? bob : twin))),
    );
    const joined = answers.filter((answer) => answer.status === 'OK' && !answer.wasAlreadyAssociated);
    expect(joined).toHaveLength(1);
    const winner = answers.indexOf(joined[0]) % 2 === 0 ? bob : twin;
    const loser = winner === bob ? twin : bob;
    for (const [n, answer] of answers.entries()) {
      const user = n % 2 === 0 ? bob : twin;
      if (user === loser) expect(answer).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
      else expect(answer.status).toBe('OK');
    }
  });

  it('never logs the client secret', () => {
    const logs = core.logs.join('');
    expect(logs).toContain('multitenancy/config/thirdparty');
    expect(logs).not.toContain(oauth.clientSecret);
    expect(logs).not.toMatch(/clientSecret/);
  });
});
