import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreApiKey, startListeningCore, type ListeningCore } from './app/core.js';
import { startSdkApp, type SdkApp } from './app/sdk-app.js';
import { Outbox } from './app/outbox.js';

// The SDK's Dashboard recipe in its email-password mode in the real app, against the core (contract-multitenancy T-6
// item 5): dashboard users are made by an operator with a plain HTTP call to the core, and the dashboard's API is
// driven as its web page drives it, with the session id as a bearer token.
const admin = { email: 'admin@example.com', password: 'admin-pass-4821' };
const viewer = { email: 'viewer@example.com', password: 'viewer-pass-9377' };
const DAY_MS = 86_400_000;

describe('supertokens-node Dashboard in the app, against the core', () => {
  let core: ListeningCore;
  let app: SdkApp;
  // The core's clock runs ahead of the wall clock by this much (no SDK session is made here, so nothing minds).
  let ahead = 0;
  const sessionIds: string[] = [];

  beforeAll(async () => {
    core = await startListeningCore({ log_level: 'DEBUG' }, { clock: () => Date.now() + ahead });
    app = await startSdkApp({ coreUrl: core.url, apiKey: coreApiKey, outbox: new Outbox(), dashboard: { admins: [admin.email] } });
  });
  afterAll(async () => {
    await app?.close();
    await core?.close();
  });

  /** What an operator runs with curl. */
  async function coreCall(method: string, path: string, body?: unknown) {
    const response = await fetch(`${core.url}${path}`, {
      method,
      headers: { 'api-key': coreApiKey, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  async function dashboardCall(method: string, path: string, options: { sessionId?: string; body?: unknown } = {}) {
    const response = await fetch(`${app.url}/auth/dashboard/api${path}`, {
      method,
      headers: {
        ...(options.sessionId !== undefined && { authorization: `Bearer ${options.sessionId}` }),
        ...(options.body !== undefined && { 'content-type': 'application/json' }),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as Record<string, any>) };
  }

  async function signIn(user: { email: string; password: string }): Promise<string> {
    const reply = await dashboardCall('POST', '/signin', { body: user });
    expect([reply.status, reply.body?.status]).toEqual([200, 'OK']);
    sessionIds.push(reply.body!.sessionId as string);
    return reply.body!.sessionId as string;
  }

  it('creates dashboard users at the core and signs in through the app', async () => {
    for (const user of [admin, viewer]) {
      const created = await coreCall('POST', '/recipe/dashboard/user', user);
      expect([created.status, created.body.status]).toEqual([200, 'OK']);
    }
    const wrong = await dashboardCall('POST', '/signin', { body: { email: admin.email, password: 'not-it-1234' } });
    expect([wrong.status, wrong.body]).toEqual([200, { status: 'INVALID_CREDENTIALS_ERROR' }]);
    await signIn(admin);
    expect(app.coreCalls).toContainEqual({ method: 'POST', path: '/recipe/dashboard/signin' });
  });

  it('serves the dashboard pages with the bearer session: search tags, tenants, tenant info', async () => {
    const sessionId = await signIn(viewer);
    const tags = await dashboardCall('GET', '/search/tags', { sessionId });
    expect([tags.status, tags.body]).toEqual([200, { status: 'OK', tags: ['email', 'phone', 'provider'] }]);
    const tenants = await dashboardCall('GET', '/tenants', { sessionId });
    expect(tenants.status).toBe(200);
    expect(tenants.body?.tenants).toEqual([expect.objectContaining({ tenantId: 'public' })]);
    const tenant = await dashboardCall('GET', '/tenant?tenantId=public', { sessionId });
    expect([tenant.status, tenant.body?.status]).toEqual([200, 'OK']);
    expect(tenant.body?.tenant.coreConfig).toContainEqual(
      expect.objectContaining({ key: 'passwordless_code_lifetime', isDifferentAcrossTenants: true, value: 900000 }),
    );
    expect(app.coreCalls).toContainEqual({ method: 'POST', path: '/recipe/dashboard/session/verify' });
    expect(app.coreCalls).toContainEqual({ method: 'GET', path: '/recipe/dashboard/tenant/core-config' });
    const forged = await dashboardCall('GET', '/search/tags', { sessionId: '1b4e28ba-2fa1-4d2b-883f-0016d3cca427' });
    expect(forged.status).toBe(401);
  });

  it('lets only the admins make changes', async () => {
    const body = { sessionHandles: ['no-such-session-handle'] };
    const byViewer = await dashboardCall('POST', '/user/sessions', { sessionId: await signIn(viewer), body });
    expect(byViewer.status).toBe(403);
    const byAdmin = await dashboardCall('POST', '/user/sessions', { sessionId: await signIn(admin), body });
    expect([byAdmin.status, byAdmin.body]).toEqual([200, { status: 'OK' }]);
  });

  it('signs out (a DELETE with a JSON content type and no body at the core), after which the session is refused', async () => {
    const sessionId = await signIn(viewer);
    expect((await dashboardCall('GET', '/search/tags', { sessionId })).status).toBe(200);
    const signOut = await dashboardCall('POST', '/signout', { sessionId });
    expect([signOut.status, signOut.body]).toEqual([200, { status: 'OK' }]);
    expect(app.coreCalls).toContainEqual({ method: 'DELETE', path: '/recipe/dashboard/session' });
    expect((await dashboardCall('GET', '/search/tags', { sessionId })).status).toBe(401);
  });

  it('refuses every session of a user whose password an operator changed', async () => {
    const sessionId = await signIn(admin);
    const users = await coreCall('GET', '/recipe/dashboard/users');
    const { userId } = (users.body.users as { email: string; userId: string }[]).find((user) => user.email === admin.email)!;
    const changed = await coreCall('PUT', '/recipe/dashboard/user', { userId, newPassword: 'admin-pass-0002' });
    expect(changed.body.status).toBe('OK');
    expect((await dashboardCall('GET', '/search/tags', { sessionId })).status).toBe(401);
    const old = await dashboardCall('POST', '/signin', { body: admin });
    expect(old.body).toEqual({ status: 'INVALID_CREDENTIALS_ERROR' });
    admin.password = 'admin-pass-0002';
    await signIn(admin);
  });

  it('refuses a session once it has expired', async () => {
    const sessionId = await signIn(viewer);
    ahead = 30 * DAY_MS - 60_000;
    expect((await dashboardCall('GET', '/search/tags', { sessionId })).status).toBe(200);
    ahead = 30 * DAY_MS + 1;
    expect((await dashboardCall('GET', '/search/tags', { sessionId })).status).toBe(401);
  });

  it('logs no dashboard password or session id at DEBUG', () => {
    expect(core.app.log.level).toBe('debug');
    const logs = core.logs.join('');
    expect(logs).toContain('/recipe/dashboard/session/verify');
    for (const secret of [admin.password, 'admin-pass-4821', viewer.password, 'not-it-1234', ...sessionIds]) {
      expect(logs, secret).not.toContain(secret);
    }
  });
});
