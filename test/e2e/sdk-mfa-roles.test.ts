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
import UserRoles, { PermissionClaim, UserRoleClaim } from 'supertokens-node/recipe/userroles/index.js';
import MultiFactorAuth from 'supertokens-node/recipe/multifactorauth/index.js';
import Totp from 'supertokens-node/recipe/totp/index.js';
import { call, useTestApp } from '../helper.js';
import { decodeBase32 } from '../../src/base32.js';
import { totp } from '../../src/recipes/totp/code.js';

// The official SDK's UserMetadata, UserRoles, MultiFactorAuth and TOTP recipes against the core, through an Express
// app built the standard way (middleware, verifySession, claim validators). Users arrive by bulk import, as a
// migration brings them.
const apiKey = 'e2e-api-key-with-more-than-20-chars';
const SHA1_BASE32 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const password = 'pw-12345';

describe('supertokens-node metadata, roles and MFA against the core', () => {
  let appUrl: string;
  let server: http.Server;
  const t = useTestApp({ api_keys: apiKey });

  beforeAll(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const coreUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    supertokens.init({
      framework: 'express',
      supertokens: { connectionURI: coreUrl, apiKey },
      appInfo: { appName: 'mfa app', apiDomain: appUrl, websiteDomain: appUrl, apiBasePath: '/auth', websiteBasePath: '/auth' },
      recipeList: [
        EmailPassword.init(),
        Session.init({ getTokenTransferMethod: () => 'header' }),
        UserMetadata.init(),
        UserRoles.init(),
        MultiFactorAuth.init({ firstFactors: ['emailpassword'] }),
        Totp.init({ defaultSkew: 1, defaultPeriod: 30 }),
      ],
    });
    const app = express();
    app.set('etag', false);
    app.use(express.json());
    app.use(middleware());
    const me = (request: SessionRequest, response: express.Response) => response.json({ userId: request.session!.getUserId() });
    app.get('/api/me', verifySession(), me);
    app.get(
      '/api/admin',
      verifySession({
        overrideGlobalClaimValidators: (validators) => [
          ...validators,
          UserRoleClaim.validators.includes('admin'),
          PermissionClaim.validators.includes('users:read'),
        ],
      }),
      me,
    );
    // The app's own recovery route (M-7): the core spends the code, the app marks the second factor done.
    app.post('/api/recovery', verifySession({ overrideGlobalClaimValidators: () => [] }), async (request: SessionRequest, response) => {
      const session = request.session!;
      const core = await fetch(`${coreUrl}/public/recipe/recoverycodes/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'api-key': apiKey },
        body: JSON.stringify({ userId: session.getUserId(), code: (request.body as { code: string }).code }),
      });
      const answer = (await core.json()) as { status: string };
      if (answer.status === 'OK') await MultiFactorAuth.markFactorAsCompleteInSession(session, 'totp');
      response.json(answer);
    });
    app.use(errorHandler());
    server.on('request', app);
  });
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );

  const importUsers = async (body: unknown) => {
    const reply = await call(t.app, 'POST', '/bulk-import/users?importNow=true', { body, headers: { 'api-key': apiKey } });
    expect(reply.statusCode, reply.body).toBe(200);
    expect((await t.db.pool.query('SELECT count(*)::int AS n FROM bulk_import_users')).rows[0].n).toBe(0);
  };
  const importedUser = (externalUserId: string, extra: Record<string, unknown> = {}) => ({
    externalUserId,
    loginMethods: [{ recipeId: 'emailpassword', email: `${externalUserId}@example.com`, plainTextPassword: password }],
    ...extra,
  });

  interface Tokens {
    access: string;
  }
  const payloadOf = (tokens: Tokens) => JSON.parse(Buffer.from(tokens.access.split('.')[1], 'base64url').toString('utf8'));
  async function signIn(email: string): Promise<Tokens> {
    const response = await fetch(`${appUrl}/auth/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'st-auth-mode': 'header' },
      body: JSON.stringify({
        formFields: [
          { id: 'email', value: email },
          { id: 'password', value: password },
        ],
      }),
    });
    const body = (await response.json()) as { status: string };
    expect(body.status).toBe('OK');
    return { access: response.headers.get('st-access-token')! };
  }
  async function send(tokens: Tokens, method: string, path: string, body?: unknown) {
    const response = await fetch(`${appUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${tokens.access}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const renewed = response.headers.get('st-access-token');
    if (renewed) tokens.access = renewed;
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }
  const codeNow = (base32: string) =>
    totp(decodeBase32(base32.replace(/=+$/, ''))!, t.clock.nowMs, { period: 30, algorithm: 'SHA1', digits: 6 });

  it('reads and updates metadata through the UserMetadata recipe', async () => {
    expect(await UserMetadata.getUserMetadata('meta-1')).toEqual({ status: 'OK', metadata: {} });
    await UserMetadata.updateUserMetadata('meta-1', { plan: 'pro', theme: { dark: true } });
    expect(await UserMetadata.updateUserMetadata('meta-1', { theme: null, seats: 3 })).toEqual({
      status: 'OK',
      metadata: { plan: 'pro', seats: 3 },
    });
    expect(await UserMetadata.getUserMetadata('meta-1')).toEqual({ status: 'OK', metadata: { plan: 'pro', seats: 3 } });
    expect(await UserMetadata.clearUserMetadata('meta-1')).toEqual({ status: 'OK' });
    expect(await UserMetadata.getUserMetadata('meta-1')).toEqual({ status: 'OK', metadata: {} });
  });

  it('puts roles and permissions in the access token and lets the claim validators decide', async () => {
    expect(await UserRoles.createNewRoleOrAddPermissions('admin', ['users:read'])).toEqual({ status: 'OK', createdNewRole: true });
    expect(await UserRoles.createNewRoleOrAddPermissions('viewer', ['reports:read'])).toEqual({ status: 'OK', createdNewRole: true });
    await importUsers({ users: [importedUser('boss', { userRoles: [{ role: 'admin', tenantIds: ['public'] }] }), importedUser('guest')] });
    expect(await UserRoles.addRoleToUser('public', 'guest', 'viewer')).toEqual({ status: 'OK', didUserAlreadyHaveRole: false });
    expect(await UserRoles.getRolesForUser('public', 'boss')).toEqual({ status: 'OK', roles: ['admin'] });
    expect(await UserRoles.getUsersThatHaveRole('public', 'admin')).toEqual({ status: 'OK', users: ['boss'] });
    expect(await UserRoles.getPermissionsForRole('admin')).toEqual({ status: 'OK', permissions: ['users:read'] });
    expect(await UserRoles.addRoleToUser('public', 'guest', 'ghost')).toEqual({ status: 'UNKNOWN_ROLE_ERROR' });

    const boss = await signIn('boss@example.com');
    expect(payloadOf(boss)).toMatchObject({
      sub: 'boss',
      'st-role': { v: ['admin'], t: expect.any(Number) },
      'st-perm': { v: ['users:read'], t: expect.any(Number) },
      'st-mfa': { c: { emailpassword: expect.any(Number) }, v: true },
    });
    expect(await send(boss, 'GET', '/api/admin')).toEqual({ status: 200, json: { userId: 'boss' } });

    const guest = await signIn('guest@example.com');
    expect(payloadOf(guest)['st-role'].v).toEqual(['viewer']);
    const refused = await send(guest, 'GET', '/api/admin');
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe('invalid claim');
  });

  // One user per encoding the import reads (M-6); each must give a code before the session is complete.
  const encodings = [
    ['base32', { secretKey: SHA1_BASE32 }],
    ['hex', { secretKey: '3132333435363738393031323334353637383930', secretEncoding: 'hex' }],
    ['base64', { secretKey: 'MTIzNDU2Nzg5MDEyMzQ1Njc4OTA=', secretEncoding: 'base64' }],
    ['raw', { secretKey: '12345678901234567890', secretEncoding: 'raw' }],
    ['otpauth', { secretKey: `otpauth://totp/Acme:x?secret=${SHA1_BASE32}&issuer=Acme` }],
  ] as const;

  it.each(encodings)(
    'enforces an imported device (%s): sign-in stops at MFA until a valid code, replays refused',
    async (encoding, device) => {
      const userId = `totp-${encoding}`;
      await importUsers({ users: [importedUser(userId, { totpDevices: [device] })] });
      expect(await UserMetadata.getUserMetadata(userId)).toEqual({
        status: 'OK',
        metadata: { _supertokens: { requiredSecondaryFactors: ['totp'] } },
      });

      const tokens = await signIn(`${userId}@example.com`);
      expect(payloadOf(tokens)['st-mfa']).toEqual({ c: { emailpassword: expect.any(Number) }, v: false });
      expect((await send(tokens, 'GET', '/api/me')).status).toBe(403);

      expect(await send(tokens, 'POST', '/auth/totp/verify', { totp: '000000' })).toEqual({
        status: 200,
        json: { status: 'INVALID_TOTP_ERROR', currentNumberOfFailedAttempts: 1, maxNumberOfFailedAttempts: 5 },
      });
      const code = codeNow(SHA1_BASE32);
      expect(await send(tokens, 'POST', '/auth/totp/verify', { totp: code })).toEqual({ status: 200, json: { status: 'OK' } });
      expect(payloadOf(tokens)['st-mfa']).toEqual({ c: { emailpassword: expect.any(Number), totp: expect.any(Number) }, v: true });
      expect(await send(tokens, 'GET', '/api/me')).toEqual({ status: 200, json: { userId } });

      const again = await signIn(`${userId}@example.com`);
      expect(await send(again, 'POST', '/auth/totp/verify', { totp: code })).toEqual({
        status: 200,
        json: { status: 'INVALID_TOTP_ERROR', currentNumberOfFailedAttempts: 1, maxNumberOfFailedAttempts: 5 },
      });
      expect((await send(again, 'GET', '/api/me')).status).toBe(403);
    },
  );

  it('applies the wrong-code limit', async () => {
    await importUsers({ users: [importedUser('limited', { totpDevices: [{ secretKey: SHA1_BASE32 }] })] });
    const tokens = await signIn('limited@example.com');
    for (let attempt = 1; attempt <= 5; attempt++) {
      expect((await send(tokens, 'POST', '/auth/totp/verify', { totp: '000000' })).json.currentNumberOfFailedAttempts).toBe(attempt);
    }
    expect(await send(tokens, 'POST', '/auth/totp/verify', { totp: codeNow(SHA1_BASE32) })).toEqual({
      status: 200,
      json: { status: 'LIMIT_REACHED_ERROR', retryAfterMs: 900_000, currentNumberOfFailedAttempts: 5, maxNumberOfFailedAttempts: 5 },
    });
    expect((await send(tokens, 'GET', '/api/me')).status).toBe(403);
  });

  it('lets an imported recovery code complete the second factor once', async () => {
    await importUsers({
      users: [importedUser('lost-phone', { totpDevices: [{ secretKey: SHA1_BASE32 }], recoveryCodes: ['abcde-fghij'] })],
    });
    const tokens = await signIn('lost-phone@example.com');
    expect((await send(tokens, 'GET', '/api/me')).status).toBe(403);
    expect(await send(tokens, 'POST', '/api/recovery', { code: 'ABCDE FGHIJ' })).toEqual({
      status: 200,
      json: { status: 'OK', remainingCount: 0 },
    });
    expect(await send(tokens, 'GET', '/api/me')).toEqual({ status: 200, json: { userId: 'lost-phone' } });

    const again = await signIn('lost-phone@example.com');
    expect((await send(again, 'POST', '/api/recovery', { code: 'abcde-fghij' })).json).toEqual({
      status: 'INVALID_RECOVERY_CODE_ERROR',
      currentNumberOfFailedAttempts: 1,
      maxNumberOfFailedAttempts: 5,
    });
    expect((await send(again, 'GET', '/api/me')).status).toBe(403);
  });
});
