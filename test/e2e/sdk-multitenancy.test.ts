import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Multitenancy from 'supertokens-node/recipe/multitenancy/index.js';
import { coreApiKey, startListeningCore, type ListeningCore } from './app/core.js';
import { startFakeOAuthProvider, type FakeOAuthProvider } from './app/fake-oauth.js';
import { startSdkApp, thirdPartyId, type SdkApp } from './app/sdk-app.js';
import { FrontendClient } from './app/client.js';
import { Outbox } from './app/outbox.js';

// supertokens-node's Multitenancy recipe against the core (contract-multitenancy T-6.1, without the per-tenant
// sign-in that needs memberships): the tenant lifecycle, and the public tenant's provider config read from the core
// by a third-party sign-in against the loopback OpenID provider. The app configures fake-oidc only partly.
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

  it('never logs the client secret', () => {
    const logs = core.logs.join('');
    expect(logs).toContain('multitenancy/config/thirdparty');
    expect(logs).not.toContain(oauth.clientSecret);
    expect(logs).not.toMatch(/clientSecret/);
  });
});
