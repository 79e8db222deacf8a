import { beforeEach, describe, expect, it } from 'vitest';
import { call, truncateAll, useTestApp } from '../../helper.js';

// Email-verification tokens per tenant (contract-multitenancy T-2, T-3; M3 and M8 of T-1.1).
describe('email-verification tokens in tenants', () => {
  const t = useTestApp();
  let userId: string;

  const post = (url: string, body: unknown) => call(t.app, 'POST', url, { body });
  const createToken = async (tenant: string, email = 'ann@x.com') => {
    const reply = await post(`/${tenant}/recipe/user/email/verify/token`, { userId, email });
    expect(reply.json.status).toBe('OK');
    return reply.json.token as string;
  };
  const verify = async (tenant: string, token: string) =>
    (await post(`/${tenant}/recipe/user/email/verify`, { method: 'token', token })).json;
  const tokenTenants = async () =>
    (await t.db.pool.query('SELECT tenant_id, email FROM email_verification_tokens ORDER BY tenant_id, email')).rows;
  const isVerified = async (email = 'ann@x.com') =>
    (await call(t.app, 'GET', '/recipe/user/email/verify', { query: { userId, email } })).json.isVerified as boolean;

  beforeEach(async () => {
    await truncateAll(t.db);
    for (const tenantId of ['acme', 'globex']) {
      const put = await call(t.app, 'PUT', '/recipe/multitenancy/tenant/v2', { body: { tenantId, firstFactors: ['emailpassword'] } });
      expect(put.json.status).toBe('OK');
    }
    userId = (await post('/recipe/signup', { email: 'ann@x.com', password: 'password-1' })).json.user.id;
    expect((await post('/acme/recipe/multitenancy/tenant/user', { recipeUserId: userId })).json.status).toBe('OK');
  });

  it('spends a token only in the tenant it was made in; elsewhere it is an invalid token and stays', async () => {
    const token = await createToken('acme');
    expect(await tokenTenants()).toEqual([{ tenant_id: 'acme', email: 'ann@x.com' }]);
    expect(await verify('globex', token)).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
    expect(await verify('public', token)).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
    expect(await isVerified()).toBe(false);
    expect(await tokenTenants()).toEqual([{ tenant_id: 'acme', email: 'ann@x.com' }]);
    expect(await verify('acme', token)).toEqual({ status: 'OK', userId, email: 'ann@x.com' });
    // The verified pair is app-wide.
    expect(await isVerified()).toBe(true);
    expect(await tokenTenants()).toEqual([]);
  });

  it('spending a token ends the other tokens of its (user, email) in its tenant only', async () => {
    const inAcme = await createToken('acme');
    await createToken('acme');
    await createToken('public');
    expect(await verify('acme', inAcme)).toEqual({ status: 'OK', userId, email: 'ann@x.com' });
    expect(await tokenTenants()).toEqual([{ tenant_id: 'public', email: 'ann@x.com' }]);
  });

  it('revokes the tokens of the tenant named in the path only', async () => {
    await createToken('acme');
    const inPublic = await createToken('public');
    expect((await post('/globex/recipe/user/email/verify/token/remove', { userId, email: 'ann@x.com' })).json).toEqual({ status: 'OK' });
    expect((await tokenTenants()).map((row) => row.tenant_id)).toEqual(['acme', 'public']);
    expect((await post('/acme/recipe/user/email/verify/token/remove', { userId, email: 'ann@x.com' })).json).toEqual({ status: 'OK' });
    expect((await tokenTenants()).map((row) => row.tenant_id)).toEqual(['public']);
    expect(await verify('public', inPublic)).toEqual({ status: 'OK', userId, email: 'ann@x.com' });
  });

  it('ends the tokens a login method had in a tenant it leaves (M8), every email, and no other tenant', async () => {
    const inAcme = await createToken('acme');
    await createToken('acme', 'other@x.com');
    const inPublic = await createToken('public');
    expect((await post('/acme/recipe/multitenancy/tenant/user/remove', { recipeUserId: userId })).json).toEqual({
      status: 'OK',
      wasAssociated: true,
    });
    expect(await tokenTenants()).toEqual([{ tenant_id: 'public', email: 'ann@x.com' }]);
    expect(await verify('acme', inAcme)).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
    expect(await verify('public', inPublic)).toEqual({ status: 'OK', userId, email: 'ann@x.com' });
  });

  it('ends the tokens of a removed tenant (M3)', async () => {
    await createToken('acme');
    await createToken('public');
    expect((await post('/recipe/multitenancy/tenant/remove', { tenantId: 'acme' })).json).toEqual({ status: 'OK', didExist: true });
    expect((await tokenTenants()).map((row) => row.tenant_id)).toEqual(['public']);
  });
});
