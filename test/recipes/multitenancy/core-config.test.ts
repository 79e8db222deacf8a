import crypto from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { encodeBase32 } from '../../../src/base32.js';
import { call, truncateAll, useTestApp } from '../../helper.js';

// A tenant's coreConfig overrides apply to requests under that tenant only (contract-multitenancy M2); public keeps
// config.yaml's values (here the defaults).
describe('per-tenant coreConfig', () => {
  const t = useTestApp();
  const post = (url: string, body: unknown, headers: Record<string, string> = {}) => call(t.app, 'POST', url, { body, headers });
  const setCoreConfig = async (coreConfig: Record<string, number>) => {
    const reply = await call(t.app, 'PUT', '/recipe/multitenancy/tenant/v2', {
      body: { tenantId: 'acme', firstFactors: ['emailpassword', 'otp-email'], coreConfig },
    });
    expect(reply.json.status).toBe('OK');
  };
  let userId: string;

  beforeEach(async () => {
    await truncateAll(t.db);
    // Any override left by an earlier test is unset (a null value deletes the key).
    await setCoreConfig({
      password_reset_token_lifetime: null,
      email_verification_token_lifetime: null,
      passwordless_code_lifetime: null,
      passwordless_max_code_input_attempts: null,
      totp_max_attempts: null,
      totp_rate_limit_cooldown_sec: null,
    } as unknown as Record<string, number>);
    await call(t.app, 'PUT', '/recipe/multitenancy/tenant/v2', { body: { tenantId: 'globex', firstFactors: ['emailpassword'] } });
    userId = (await post('/recipe/signup', { email: 'ann@x.com', password: 'password-1' })).json.user.id;
  });

  it('password_reset_token_lifetime: a token made under the tenant expires at its lifetime', async () => {
    await setCoreConfig({ password_reset_token_lifetime: 1000 });
    const make = async (tenant: string) =>
      (await post(`/${tenant}/recipe/user/password/reset/token`, { userId, email: 'ann@x.com' })).json.token as string;
    const inAcme = await make('acme');
    t.clock.advance(2000);
    const consume = async (token: string) => (await post('/recipe/user/password/reset/token/consume', { token })).json.status;
    expect(await consume(inAcme)).toBe('RESET_PASSWORD_INVALID_TOKEN_ERROR');
    // Another tenant keeps the base lifetime (one hour).
    const inGlobex = await make('globex');
    t.clock.advance(2000);
    expect(await consume(inGlobex)).toBe('OK');
  });

  it('email_verification_token_lifetime: a token made under the tenant expires at its lifetime', async () => {
    await setCoreConfig({ email_verification_token_lifetime: 1000 });
    const make = async (tenant: string, email: string) =>
      (await post(`/${tenant}/recipe/user/email/verify/token`, { userId, email })).json.token as string;
    const inAcme = await make('acme', 'a@x.com');
    const inPublic = await make('public', 'p@x.com');
    t.clock.advance(2000);
    const verify = async (tenant: string, token: string) =>
      (await post(`/${tenant}/recipe/user/email/verify`, { method: 'token', token })).json.status;
    expect(await verify('acme', inAcme)).toBe('EMAIL_VERIFICATION_INVALID_TOKEN_ERROR');
    expect(await verify('public', inPublic)).toBe('OK');
  });

  const rid = { rid: 'passwordless' };
  const createCode = async (tenant: string, email = 'ann@x.com') => (await post(`/${tenant}/recipe/signinup/code`, { email }, rid)).json;
  const consume = async (tenant: string, code: { preAuthSessionId: string; deviceId: string }, userInputCode: string) =>
    (
      await post(
        `/${tenant}/recipe/signinup/code/consume`,
        { preAuthSessionId: code.preAuthSessionId, deviceId: code.deviceId, userInputCode },
        rid,
      )
    ).json;

  it('passwordless_code_lifetime: answered with the code, and a code of the tenant expires at it', async () => {
    await setCoreConfig({ passwordless_code_lifetime: 1000 });
    const inAcme = await createCode('acme');
    const inPublic = await createCode('public');
    expect([inAcme.codeLifetime, inPublic.codeLifetime]).toEqual([1000, 900000]);
    const listed = await call(t.app, 'GET', '/acme/recipe/signinup/codes', { query: { email: 'ann@x.com' }, headers: rid });
    expect(listed.json.devices[0].codes[0].codeLifetime).toBe(1000);
    t.clock.advance(2000);
    expect((await consume('acme', inAcme, inAcme.userInputCode)).status).toBe('EXPIRED_USER_INPUT_CODE_ERROR');
    expect((await consume('public', inPublic, inPublic.userInputCode)).status).toBe('OK');
  });

  it('passwordless_code_lifetime: the sweep of expired devices keeps a code the tenant still accepts', async () => {
    await setCoreConfig({ passwordless_code_lifetime: 2_000_000 });
    const inAcme = await createCode('acme');
    const inPublic = await createCode('public', 'bob@x.com');
    t.clock.advance(1_000_000);
    // Past public's lifetime, within acme's: the sweep waits for the longest lifetime any tenant sets.
    expect(await t.app.services.passwordless.deleteExpiredDevices()).toBe(0);
    expect((await consume('public', inPublic, inPublic.userInputCode)).status).toBe('EXPIRED_USER_INPUT_CODE_ERROR');
    expect((await consume('acme', inAcme, inAcme.userInputCode)).status).toBe('OK');
    t.clock.advance(1_100_000);
    expect(await t.app.services.passwordless.deleteExpiredDevices()).toBe(1);
  });

  it('passwordless_max_code_input_attempts: the tenant restarts the flow after its number of wrong codes', async () => {
    await setCoreConfig({ passwordless_max_code_input_attempts: 2 });
    const inAcme = await createCode('acme');
    const inPublic = await createCode('public');
    expect(await consume('acme', inAcme, 'wrong1')).toEqual({
      status: 'INCORRECT_USER_INPUT_CODE_ERROR',
      failedCodeInputAttemptCount: 1,
      maximumCodeInputAttempts: 2,
    });
    expect(await consume('acme', inAcme, 'wrong2')).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect(await consume('public', inPublic, 'wrong1')).toEqual({
      status: 'INCORRECT_USER_INPUT_CODE_ERROR',
      failedCodeInputAttemptCount: 1,
      maximumCodeInputAttempts: 5,
    });
    expect((await consume('public', inPublic, 'wrong2')).failedCodeInputAttemptCount).toBe(2);
  });

  const importDevice = (user: string) =>
    post('/recipe/totp/device/import', {
      userId: user,
      deviceName: 'd',
      skew: 0,
      period: 30,
      secretKey: encodeBase32(crypto.randomBytes(20), { padding: false }),
    });
  const verifyTotp = async (tenant: string, user: string) =>
    (await post(`/${tenant}/recipe/totp/verify`, { userId: user, totp: '000000' })).json;

  it('totp_max_attempts: the tenant locks after its number of wrong codes', async () => {
    await setCoreConfig({ totp_max_attempts: 2 });
    await importDevice('u1');
    await importDevice('u2');
    for (let n = 1; n <= 2; n++) {
      expect(await verifyTotp('acme', 'u1')).toEqual({
        status: 'INVALID_TOTP_ERROR',
        currentNumberOfFailedAttempts: n,
        maxNumberOfFailedAttempts: 2,
      });
      expect(await verifyTotp('public', 'u2')).toEqual({
        status: 'INVALID_TOTP_ERROR',
        currentNumberOfFailedAttempts: n,
        maxNumberOfFailedAttempts: 5,
      });
    }
    expect((await verifyTotp('acme', 'u1')).status).toBe('LIMIT_REACHED_ERROR');
    expect((await verifyTotp('public', 'u2')).status).toBe('INVALID_TOTP_ERROR');
  });

  it('totp_rate_limit_cooldown_sec: a lock in the tenant lasts its cooldown', async () => {
    await setCoreConfig({ totp_rate_limit_cooldown_sec: 10 });
    await importDevice('u1');
    for (const tenant of ['acme', 'public']) for (let n = 0; n < 5; n++) await verifyTotp(tenant, 'u1');
    expect(await verifyTotp('acme', 'u1')).toEqual({
      status: 'LIMIT_REACHED_ERROR',
      retryAfterMs: 10000,
      currentNumberOfFailedAttempts: 5,
      maxNumberOfFailedAttempts: 5,
    });
    expect((await verifyTotp('public', 'u1')).retryAfterMs).toBe(900000);
    t.clock.advance(11_000);
    expect((await verifyTotp('acme', 'u1')).status).toBe('INVALID_TOTP_ERROR');
    expect((await verifyTotp('public', 'u1')).status).toBe('LIMIT_REACHED_ERROR');
  });
});
