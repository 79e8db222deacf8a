import { describe, expect, it } from 'vitest';
import { call, expectText, useTestApp } from '../../helper.js';

// Tenants as configuration (contract-multitenancy T-1.1 M1–M6, M9; T-7 rows 1–19), on real PostgreSQL over HTTP.
const put = (t: { app: Parameters<typeof call>[0] }, body: unknown, path = '') =>
  call(t.app, 'PUT', `${path}/recipe/multitenancy/tenant/v2`, { body });
const fail = async (reply: Promise<Awaited<ReturnType<typeof call>>>) => {
  const answer = await reply;
  return [answer.statusCode, expectText(answer)];
};
const oidc = {
  thirdPartyId: 'fake-oidc',
  name: 'Fake OpenID provider',
  oidcDiscoveryEndpoint: 'https://id.example.com/.well-known/openid-configuration',
  clients: [{ clientId: 'app-client', clientSecret: 'the-client-secret-0123', scope: ['openid', 'email'] }],
};
const emptyMap = { fromIdTokenPayload: {}, fromUserInfoAPI: {} };

describe('tenant lifecycle', () => {
  const t = useTestApp();

  it('creates a tenant with no login method, then updates it (M2, M1)', async () => {
    expect((await put(t, { tenantId: 'Acme' })).json).toEqual({ status: 'OK', createdNew: true });
    expect((await call(t.app, 'GET', '/acme/recipe/multitenancy/tenant/v2')).json).toEqual({
      tenantId: 'acme',
      thirdParty: { providers: [] },
      firstFactors: [],
      coreConfig: {},
      status: 'OK',
    });
    const update = { tenantId: 'acme', firstFactors: ['emailpassword', 'thirdparty'], coreConfig: { passwordless_code_lifetime: 60000 } };
    expect((await put(t, update)).json).toEqual({ status: 'OK', createdNew: false });
    // Absent keys are kept, null unsets, a null coreConfig value deletes the key.
    expect((await put(t, { tenantId: 'acme', requiredSecondaryFactors: ['totp'], coreConfig: { totp_max_attempts: 3 } })).json).toEqual({
      status: 'OK',
      createdNew: false,
    });
    expect((await call(t.app, 'GET', '/acme/recipe/multitenancy/tenant/v2')).json).toEqual({
      tenantId: 'acme',
      thirdParty: { providers: [] },
      firstFactors: ['emailpassword', 'thirdparty'],
      requiredSecondaryFactors: ['totp'],
      coreConfig: { passwordless_code_lifetime: 60000, totp_max_attempts: 3 },
      status: 'OK',
    });
    await put(t, { tenantId: 'acme', firstFactors: null, coreConfig: { totp_max_attempts: null } });
    const after = (await call(t.app, 'GET', '/acme/recipe/multitenancy/tenant/v2')).json;
    expect(after).toEqual({
      tenantId: 'acme',
      thirdParty: { providers: [] },
      requiredSecondaryFactors: ['totp'],
      coreConfig: { passwordless_code_lifetime: 60000 },
      status: 'OK',
    });
    // The same tenant may update itself through its own path.
    expect((await put(t, { tenantId: 'acme', firstFactors: ['emailpassword'] }, '/acme')).json).toEqual({
      status: 'OK',
      createdNew: false,
    });
  });

  it('answers the public tenant as it was seeded, and sets its factors but never its core config', async () => {
    expect((await call(t.app, 'GET', '/recipe/multitenancy/tenant/v2')).json).toEqual({
      tenantId: 'public',
      thirdParty: { providers: [] },
      coreConfig: {},
      status: 'OK',
    });
    expect((await put(t, {})).json).toEqual({ status: 'OK', createdNew: false });
    expect(await fail(put(t, { coreConfig: { totp_max_attempts: 3 } }))).toEqual([400, 'Cannot modify base config']);
  });

  it('answers TENANT_NOT_FOUND_ERROR for an unknown tenant (M1, M9) and 400 on the other tenant routes', async () => {
    expect((await call(t.app, 'GET', '/nope/recipe/multitenancy/tenant/v2')).json).toEqual({ status: 'TENANT_NOT_FOUND_ERROR' });
    expect((await call(t.app, 'GET', '/nope/recipe/multitenancy/tenant')).json).toEqual({ status: 'TENANT_NOT_FOUND_ERROR' });
    const notFound =
      'AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, public, nope)';
    expect(await fail(call(t.app, 'PUT', '/nope/recipe/multitenancy/config/thirdparty', { body: { config: oidc } }))).toEqual([
      400,
      notFound,
    ]);
    expect(await fail(call(t.app, 'POST', '/nope/recipe/multitenancy/config/thirdparty/remove', { body: { thirdPartyId: 'x' } }))).toEqual([
      400,
      notFound,
    ]);
    expect(await fail(put(t, { tenantId: 'nope' }, '/nope'))).toEqual([400, notFound]);
  });

  it('lists public first, then in creation order (M4), and removes a tenant with its providers (M3)', async () => {
    await put(t, { tenantId: 'zeta', firstFactors: ['emailpassword'] });
    await put(t, { tenantId: 'beta' });
    await call(t.app, 'PUT', '/beta/recipe/multitenancy/config/thirdparty', { body: { config: oidc } });
    const list = (await call(t.app, 'GET', '/recipe/multitenancy/tenant/list/v2')).json;
    expect(list.status).toBe('OK');
    expect(list.tenants.map((tenant: { tenantId: string }) => tenant.tenantId)).toEqual(['public', 'acme', 'zeta', 'beta']);
    expect(list.tenants[3].thirdParty.providers).toEqual([{ ...oidc, userInfoMap: emptyMap }]);

    expect((await call(t.app, 'POST', '/recipe/multitenancy/tenant/remove', { body: { tenantId: 'beta' } })).json).toEqual({
      status: 'OK',
      didExist: true,
    });
    expect((await t.db.pool.query("SELECT * FROM tenant_thirdparty_providers WHERE tenant_id = 'beta'")).rows).toEqual([]);
    expect((await call(t.app, 'GET', '/beta/recipe/multitenancy/tenant/v2')).json).toEqual({ status: 'TENANT_NOT_FOUND_ERROR' });
    expect((await call(t.app, 'POST', '/recipe/multitenancy/tenant/remove', { body: { tenantId: 'beta' } })).json).toEqual({
      status: 'OK',
      didExist: false,
    });
    // Created again, it starts anew.
    expect((await put(t, { tenantId: 'beta' })).json).toEqual({ status: 'OK', createdNew: true });
    expect((await call(t.app, 'GET', '/beta/recipe/multitenancy/tenant/v2')).json.thirdParty).toEqual({ providers: [] });
  });

  it('answers the deprecated shape with the recipe switches read from firstFactors (M9)', async () => {
    await put(t, { tenantId: 'legacy', firstFactors: ['otp-email'] });
    const at = (version: string) => call(t.app, 'GET', '/legacy/recipe/multitenancy/tenant', { headers: { 'cdi-version': version } });
    expect((await at('4.0')).json).toEqual({
      tenantId: 'legacy',
      emailPassword: { enabled: false },
      thirdParty: { enabled: false, providers: [] },
      passwordless: { enabled: true },
      coreConfig: {},
      status: 'OK',
    });
    expect((await at('5.0')).json).toMatchObject({ firstFactors: ['otp-email'], passwordless: { enabled: true } });
  });

  it('serves user routes in a tenant that exists, and creates the user there', async () => {
    await put(t, { tenantId: 'members', firstFactors: ['emailpassword'] });
    const signUp = await call(t.app, 'POST', '/members/recipe/signup', { body: { email: 'ann@example.com', password: 'pass-word-1' } });
    expect(signUp.statusCode).toBe(200);
    expect(signUp.json.user.tenantIds).toEqual(['members']);
    expect((await call(t.app, 'GET', '/members/users')).json.users).toHaveLength(1);
    const members = await t.db.pool.query('SELECT tenant_id FROM login_method_tenants');
    expect(members.rows).toEqual([{ tenant_id: 'members' }]);
  });
});

describe('third-party providers in the core (M5, M6)', () => {
  const t = useTestApp();

  it('adds, replaces in place and removes providers; secrets are answered but sealed at rest', async () => {
    const putProvider = (config: unknown, path = '') =>
      call(t.app, 'PUT', `${path}/recipe/multitenancy/config/thirdparty`, { body: { config } });
    expect((await putProvider(oidc)).json).toEqual({ status: 'OK', createdNew: true });
    const apple = {
      thirdPartyId: 'apple',
      clients: [
        {
          clientType: 'web',
          clientId: 'com.example.web',
          additionalConfig: { keyId: 'K1', teamId: 'T1', privateKey: 'apple-private-key-pem' },
        },
        {
          clientType: 'ios',
          clientId: 'com.example.ios',
          additionalConfig: { keyId: 'K1', teamId: 'T1', privateKey: 'apple-private-key-pem' },
        },
      ],
      authorizationEndpointQueryParams: { prompt: null, response_mode: 'form_post' },
      userInfoMap: { fromIdTokenPayload: { userId: 'sub', email: 'email' } },
    };
    expect((await putProvider(apple)).json).toEqual({ status: 'OK', createdNew: true });
    // Replaced in place: the order stays, the id is trimmed.
    const renamed = { ...oidc, thirdPartyId: ' fake-oidc ', name: 'Renamed' };
    expect((await putProvider(renamed)).json).toEqual({ status: 'OK', createdNew: false });
    const tenant = (await call(t.app, 'GET', '/recipe/multitenancy/tenant/v2')).json;
    expect(tenant.thirdParty.providers).toEqual([
      { ...oidc, name: 'Renamed', userInfoMap: emptyMap },
      { ...apple, userInfoMap: { fromIdTokenPayload: { userId: 'sub', email: 'email' }, fromUserInfoAPI: {} } },
    ]);

    const { rows } = await t.db.pool.query<{ provider: unknown; secrets: string; secrets_key_id: string }>(
      'SELECT provider, secrets, secrets_key_id FROM tenant_thirdparty_providers ORDER BY position',
    );
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain('the-client-secret-0123');
    expect(stored).not.toContain('apple-private-key-pem');
    expect(rows.map((row) => row.secrets_key_id)).toEqual(['test', 'test']);
    // A sealed value moved onto another provider's row does not open.
    await t.db.pool.query("UPDATE tenant_thirdparty_providers SET secrets = $1 WHERE third_party_id = 'apple'", [rows[0].secrets]);
    // Written behind the core's back, with no notification: seen at the next poll.
    await t.app.services.multitenancy.cache.reload();
    const moved = await call(t.app, 'GET', '/recipe/multitenancy/tenant/v2');
    expect([moved.statusCode, expectText(moved)]).toEqual([
      500,
      "The secrets of provider 'apple' in tenant 'public' are sealed with a key 'totp_secret_keys' does not list",
    ]);
    await t.db.pool.query("UPDATE tenant_thirdparty_providers SET secrets = $1 WHERE third_party_id = 'apple'", [rows[1].secrets]);

    const remove = (thirdPartyId: string) =>
      call(t.app, 'POST', '/recipe/multitenancy/config/thirdparty/remove', { body: { thirdPartyId } });
    expect((await remove('apple')).json).toEqual({ status: 'OK', didConfigExist: true });
    expect((await remove('apple')).json).toEqual({ status: 'OK', didConfigExist: false });
    expect((await call(t.app, 'GET', '/recipe/multitenancy/tenant/v2')).json.thirdParty.providers).toHaveLength(1);

    // A provider of another tenant stays there.
    await put(t, { tenantId: 'acme', firstFactors: ['thirdparty'] });
    expect((await putProvider(oidc, '/acme')).json).toEqual({ status: 'OK', createdNew: true });
    expect((await call(t.app, 'GET', '/acme/recipe/multitenancy/tenant/v2')).json.thirdParty.providers).toEqual([
      { ...oidc, userInfoMap: emptyMap },
    ]);
    expect(t.logs.join('')).not.toContain('the-client-secret-0123');
    expect(t.logs.join('')).not.toContain('apple-private-key-pem');
  });

  it('skips the provider checks with skipValidation, never the types and lengths', async () => {
    const body = { config: { thirdPartyId: 'apple-2', clients: [{ clientId: 'c' }] }, skipValidation: true };
    expect((await call(t.app, 'PUT', '/recipe/multitenancy/config/thirdparty', { body })).json).toEqual({ status: 'OK', createdNew: true });
    const long = { config: { thirdPartyId: 'x', clients: [{ clientId: 'c'.repeat(257) }] }, skipValidation: true };
    expect(await fail(call(t.app, 'PUT', '/recipe/multitenancy/config/thirdparty', { body: long }))).toEqual([
      400,
      'Invalid third party config: clients[0].clientId is too long. Max length is 256.',
    ]);
    expect(
      await fail(call(t.app, 'PUT', '/recipe/multitenancy/config/thirdparty', { body: { config: oidc, skipValidation: 'yes' } })),
    ).toEqual([400, "Field name 'skipValidation' is invalid in JSON input"]);
  });
});

describe('bad input (T-7 rows 1–19)', () => {
  const t = useTestApp();
  const notFound = (id: string) =>
    `AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, public, ${id})`;

  it.each([
    [1, { tenantId: '' }, 'tenantId should not be an empty String'],
    [1, { tenantId: '  ' }, 'tenantId should not be an empty String'],
    [2, { tenantId: 'Recipe' }, "Cannot use 'recipe' as a tenantId"],
    [2, { tenantId: 'config' }, "Cannot use 'config' as a tenantId"],
    [2, { tenantId: 'users' }, "Cannot use 'users' as a tenantId"],
    [2, { tenantId: 'hello' }, "Cannot use 'hello' as a tenantId"],
    [3, { tenantId: 'appid-x' }, "tenantId must not start with 'appid-'"],
    [4, { tenantId: 'a_b' }, 'tenantId can only contain letters, numbers and hyphens'],
    [4, { tenantId: 'a.b' }, 'tenantId can only contain letters, numbers and hyphens'],
    [4, { tenantId: 'a b' }, 'tenantId can only contain letters, numbers and hyphens'],
    [4, { tenantId: 'ä' }, 'tenantId can only contain letters, numbers and hyphens'],
    [5, { tenantId: 'a'.repeat(65) }, 'tenantId is too long. Max length is 64.'],
    [5, { tenantId: 'bulk-import' }, "Cannot use 'bulk-import' as a tenantId"],
    [5, { tenantId: 'session-bridge' }, "Cannot use 'session-bridge' as a tenantId"],
    [6, { tenantId: 5 }, "Field name 'tenantId' is invalid in JSON input"],
    [6, { tenantId: 'acme', firstFactors: 'x' }, "Field name 'firstFactors' is invalid in JSON input"],
    [6, { tenantId: 'acme', firstFactors: [1] }, "Field name 'firstFactors' is invalid in JSON input"],
    [7, { tenantId: 'acme', firstFactors: ['a', 'a'] }, 'firstFactors input should not contain duplicate values'],
    [7, { tenantId: 'acme', requiredSecondaryFactors: ['a', 'a'] }, 'requiredSecondaryFactors input should not contain duplicate values'],
    [8, { tenantId: 'acme', firstFactors: ['a b'] }, 'firstFactors should contain only 0-9,a-z,A-Z,_,.,- characters'],
    [9, { tenantId: 'acme', emailPasswordEnabled: true }, 'emailPasswordEnabled is not a valid input for this API'],
    [9, { tenantId: 'acme', thirdPartyEnabled: true }, 'thirdParty is not a valid input for this API'],
    [9, { tenantId: 'acme', passwordlessEnabled: true }, 'passwordless is not a valid input for this API'],
    [10, { tenantId: 'acme', coreConfig: { foo: 1 } }, 'Invalid core config: Invalid config key: foo'],
    [11, { coreConfig: { totp_max_attempts: 5 } }, 'Cannot modify base config'],
    [
      12,
      { tenantId: 'acme', coreConfig: { access_token_validity: 60 } },
      'Invalid core config: You cannot set different values for access_token_validity for the same appId',
    ],
    [
      13,
      { tenantId: 'acme', coreConfig: { bcrypt_log_rounds: 12 } },
      "Invalid core config: bcrypt_log_rounds can only be set via the core's base config setting",
    ],
    [
      14,
      { tenantId: 'acme', coreConfig: { passwordless_code_lifetime: 'x' } },
      'Invalid core config: passwordless_code_lifetime must be a number',
    ],
  ])('row %i: PUT tenant/v2 %j', async (_row, body, message) => {
    expect(await fail(put(t, body))).toEqual([400, message]);
    expect((await t.db.pool.query('SELECT tenant_id FROM tenants')).rows).toEqual([{ tenant_id: 'public' }]);
  });

  it('row 15: the path tenant may only create or update itself, and may not remove or list', async () => {
    await put(t, { tenantId: 'acme' });
    expect(await fail(put(t, { tenantId: 'globex' }, '/acme'))).toEqual([
      403,
      'You must use the public or same tenant to add/update a tenant',
    ]);
    expect(await fail(call(t.app, 'POST', '/acme/recipe/multitenancy/tenant/remove', { body: { tenantId: 'acme' } }))).toEqual([
      403,
      'Only the public tenantId is allowed to delete a tenant',
    ]);
    for (const version of ['3.0', '4.0', '5.0', '5.4']) {
      const list = call(t.app, 'GET', '/acme/recipe/multitenancy/tenant/list/v2', { headers: { 'cdi-version': version } });
      expect(await fail(list)).toEqual([403, 'Only the public tenantId is allowed to list all tenants associated with this app']);
    }
    // Below cdi 3.0 a tenant segment is not a path at all.
    const old = await call(t.app, 'GET', '/acme/recipe/multitenancy/tenant/list/v2', { headers: { 'cdi-version': '2.21' } });
    expect([old.statusCode, expectText(old)]).toEqual([404, 'Not found']);
    expect(await fail(call(t.app, 'GET', '/nope/recipe/multitenancy/tenant/list/v2'))).toEqual([400, notFound('nope')]);
  });

  it('row 16: public cannot be removed; an unknown tenant did not exist', async () => {
    expect(await fail(call(t.app, 'POST', '/recipe/multitenancy/tenant/remove', { body: { tenantId: 'Public' } }))).toEqual([
      403,
      'Cannot delete public tenant, use remove app API instead',
    ]);
    expect((await call(t.app, 'POST', '/recipe/multitenancy/tenant/remove', { body: { tenantId: 'ghost' } })).json).toEqual({
      status: 'OK',
      didExist: false,
    });
    expect(await fail(call(t.app, 'POST', '/recipe/multitenancy/tenant/remove', { body: {} }))).toEqual([
      400,
      "Field name 'tenantId' is invalid in JSON input",
    ]);
  });

  const putConfig = (body: unknown) => fail(call(t.app, 'PUT', '/recipe/multitenancy/config/thirdparty', { body }));
  it.each([
    [17, {}, "Field name 'config' is invalid in JSON input"],
    [17, { config: 'x' }, "Field name 'config' is invalid in JSON input"],
    [17, { config: { clients: [] } }, "Field name 'thirdPartyId' is invalid in JSON input"],
    [
      18,
      { config: { thirdPartyId: 'x', clients: [{ clientId: 'a' }, { clientId: 'b' }] } },
      'Invalid third party config: Duplicate clientType was specified in the clients list.',
    ],
    [18, { config: { thirdPartyId: 'x', clients: [{ clientSecret: 's' }] } }, 'Invalid third party config: clientId cannot be null'],
    [
      18,
      { config: { thirdPartyId: 'x', clients: [{ clientId: 'a', scope: [null] }] } },
      'Invalid third party config: scope array cannot contain a null',
    ],
    [
      19,
      { config: { thirdPartyId: 'apple', clients: [{ clientId: 'a', additionalConfig: { keyId: 'k', teamId: 't' } }] } },
      'Invalid third party config: a non empty string value must be specified for keyId, teamId and privateKey in the additionalConfig for Apple provider',
    ],
    [
      19,
      { config: { thirdPartyId: 'x'.repeat(29), clients: [] } },
      'Invalid third party config: thirdPartyId is too long. Max length is 28.',
    ],
    [
      19,
      { config: { thirdPartyId: 'x', name: 'n'.repeat(65), clients: [] } },
      'Invalid third party config: name is too long. Max length is 64.',
    ],
    [
      19,
      { config: { thirdPartyId: 'x', clients: [{ clientId: 'a', scope: ['s'.repeat(129)] }] } },
      'Invalid third party config: clients[0].scope is too long. Max length is 128.',
    ],
    [
      19,
      { config: { thirdPartyId: 'x', clients: [{ clientId: 'a', clientType: 't'.repeat(65) }] } },
      'Invalid third party config: clients[0].clientType is too long. Max length is 64.',
    ],
    [
      19,
      { config: { thirdPartyId: 'x', clients: [], userInfoMap: { fromUserInfoAPI: { email: 'e'.repeat(65) } } } },
      'Invalid third party config: userInfoMap.fromUserInfoAPI.email is too long. Max length is 64.',
    ],
    [19, { config: { thirdPartyId: 'x', clients: {} } }, 'Invalid third party config: clients must be an array'],
  ])('row %i: PUT config/thirdparty %j', async (_row, body, message) => {
    expect(await putConfig(body)).toEqual([400, message]);
    expect((await t.db.pool.query('SELECT * FROM tenant_thirdparty_providers')).rows).toEqual([]);
  });

  it('M6 needs a thirdPartyId', async () => {
    expect(await fail(call(t.app, 'POST', '/recipe/multitenancy/config/thirdparty/remove', { body: {} }))).toEqual([
      400,
      "Field name 'thirdPartyId' is invalid in JSON input",
    ]);
  });
});
