import { beforeEach, describe, expect, it } from 'vitest';
import { call, expectText, useTestApp } from '../../helper.js';

// The recipe gate older SDKs meet (contract-multitenancy T-3 row "cdi ≤ 5.0 recipe gate", T-6 item 2): raw requests.
type App = Parameters<typeof call>[0];

const requests = {
  emailpassword: [
    ['/recipe/signup', { email: 'ann@x.com', password: 'password-1' }],
    ['/recipe/signin', { email: 'ann@x.com', password: 'password-1' }],
  ],
  passwordless: [
    ['/recipe/signinup/code', { email: 'ann@x.com' }],
    ['/recipe/signinup/code/consume', { preAuthSessionId: 'A'.repeat(43), linkCode: 'A'.repeat(43) }],
  ],
  thirdparty: [['/recipe/signinup', { thirdPartyId: 'google', thirdPartyUserId: 'g-1', email: { id: 'ann@x.com' } }]],
} as const;
type Recipe = keyof typeof requests;

const refusals: Record<Recipe, string> = {
  emailpassword: 'Email password login not enabled for tenant',
  passwordless: 'Passwordless login not enabled for tenant',
  thirdparty: 'Third Party login not enabled for tenant',
};

const send = (app: App, tenant: string, recipe: Recipe, index: number, version: string) => {
  const [path, body] = requests[recipe][index];
  const headers: Record<string, string> = { 'cdi-version': version };
  if (recipe !== 'emailpassword') headers.rid = recipe;
  return call(app, 'POST', `/${tenant}${path}`, { body, headers });
};

// What each request answers: the 403 text, or 'served' for any answer past the gate.
const outcome = async (app: App, tenant: string, recipe: Recipe, index: number, version: string) => {
  const reply = await send(app, tenant, recipe, index, version);
  return reply.statusCode === 403 ? expectText(reply) : `served ${reply.statusCode}`;
};

describe('the cdi ≤ 5.0 recipe gate', () => {
  const t = useTestApp({}, { truncateEach: true });

  beforeEach(async () => {
    const put = (body: object) => call(t.app, 'PUT', '/recipe/multitenancy/tenant/v2', { body });
    // A tenant created without firstFactors has [] (contract M2); the explicit [] restores it between tests.
    expect((await put({ tenantId: 'none', firstFactors: [] })).json.status).toBe('OK');
    expect((await put({ tenantId: 'eponly', firstFactors: ['emailpassword'] })).json.status).toBe('OK');
    expect((await put({ tenantId: 'otp', firstFactors: ['otp-email'] })).json.status).toBe('OK');
  });

  const cases: { description: string; tenant: string; version: string; refused: Recipe[] }[] = [
    {
      description: 'cdi 5.0, firstFactors []: every recipe refused',
      tenant: 'none',
      version: '5.0',
      refused: ['emailpassword', 'passwordless', 'thirdparty'],
    },
    { description: 'cdi 5.0, one factor: every recipe served', tenant: 'eponly', version: '5.0', refused: [] },
    {
      description: 'cdi 4.0, firstFactors []: every recipe refused',
      tenant: 'none',
      version: '4.0',
      refused: ['emailpassword', 'passwordless', 'thirdparty'],
    },
    {
      description: 'cdi 4.0, emailpassword only: the others refused',
      tenant: 'eponly',
      version: '4.0',
      refused: ['passwordless', 'thirdparty'],
    },
    {
      description: 'cdi 4.0, otp-email only: passwordless served',
      tenant: 'otp',
      version: '4.0',
      refused: ['emailpassword', 'thirdparty'],
    },
    { description: 'cdi 5.1, firstFactors []: never refused', tenant: 'none', version: '5.1', refused: [] },
    { description: 'cdi 5.0, public (factors unset): never refused', tenant: 'public', version: '5.0', refused: [] },
    { description: 'cdi 4.0, public (factors unset): never refused', tenant: 'public', version: '4.0', refused: [] },
  ];

  for (const { description, tenant, version, refused } of cases) {
    it(description, async () => {
      for (const recipe of Object.keys(requests) as Recipe[]) {
        for (let index = 0; index < requests[recipe].length; index++) {
          const answer = await outcome(t.app, tenant, recipe, index, version);
          if (refused.includes(recipe)) expect([recipe, index, answer]).toEqual([recipe, index, refusals[recipe]]);
          else expect([recipe, index, answer]).toEqual([recipe, index, 'served 200']);
        }
      }
    });
  }

  it('refuses before writing anything, and after the tenant check', async () => {
    await send(t.app, 'none', 'emailpassword', 0, '5.0');
    expect((await call(t.app, 'GET', '/users/count', { query: { includeAllTenants: 'true' } })).json).toEqual({ status: 'OK', count: 0 });
    const unknown = await send(t.app, 'nope', 'emailpassword', 0, '5.0');
    expect([unknown.statusCode, expectText(unknown)]).toEqual([
      400,
      'AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, public, nope)',
    ]);
  });

  it('follows a change of firstFactors at once on the writing core', async () => {
    expect(await outcome(t.app, 'none', 'emailpassword', 0, '4.0')).toBe(refusals.emailpassword);
    await call(t.app, 'PUT', '/recipe/multitenancy/tenant/v2', { body: { tenantId: 'none', firstFactors: ['emailpassword'] } });
    expect(await outcome(t.app, 'none', 'emailpassword', 0, '4.0')).toBe('served 200');
    await call(t.app, 'PUT', '/recipe/multitenancy/tenant/v2', { body: { tenantId: 'none', firstFactors: null } });
    expect(await outcome(t.app, 'none', 'thirdparty', 0, '4.0')).toBe('served 200');
  });
});
