import { describe, expect, it } from 'vitest';
import { call, expectText, useTestApp } from '../../helper.js';

// Provider secrets under the TOTP keys (contract-multitenancy T-2), and concurrent writes of one tenant.
const key = (fill: number) => Buffer.alloc(32, fill).toString('base64');
const provider = {
  thirdPartyId: 'fake-oidc',
  clients: [{ clientId: 'c', clientSecret: 'rotated-client-secret-42' }],
};
const putProvider = (app: Parameters<typeof call>[0]) =>
  call(app, 'PUT', '/recipe/multitenancy/config/thirdparty', { body: { config: provider } });

describe('a core without totp_secret_keys', () => {
  const t = useTestApp({ totp_secret_keys: undefined, log_level: 'WARN' });

  it('refuses a provider with a secret, naming the setting, and stores one without', async () => {
    const reply = await putProvider(t.app);
    expect([reply.statusCode, expectText(reply)]).toEqual([
      500,
      "'totp_secret_keys' is not configured: set it in config.yaml, TOTP_SECRET_KEYS or TOTP_SECRET_KEYS_FILE",
    ]);
    expect((await t.db.pool.query('SELECT * FROM tenant_thirdparty_providers')).rows).toEqual([]);
    const noSecret = { thirdPartyId: 'public-client', clients: [{ clientId: 'c', clientType: 'web' }] };
    const stored = await call(t.app, 'PUT', '/recipe/multitenancy/config/thirdparty', { body: { config: noSecret } });
    expect(stored.json).toEqual({ status: 'OK', createdNew: true });
    // Without api_keys, anyone reaching the core reads providers back: each write says so once.
    const warnings = t.logs.filter((line) => line.includes('while api_keys is unset'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0])).toMatchObject({ level: 40, tenantId: 'public', thirdPartyId: 'public-client' });
  });
});

describe('key rotation', () => {
  const first = useTestApp({ totp_secret_keys: `old:${key(1)}`, api_keys: 'tenant-test-api-key-0123456789' });
  const rotated = useTestApp({ totp_secret_keys: `old:${key(1)},new:${key(2)}` }, { sharing: first });
  const withoutOld = useTestApp({ totp_secret_keys: `new:${key(2)}` }, { sharing: first });

  it('opens secrets sealed under an older key while it is listed, and seals new writes under the newest', async () => {
    const headers = { 'api-key': 'tenant-test-api-key-0123456789' };
    expect((await call(first.app, 'PUT', '/recipe/multitenancy/config/thirdparty', { body: { config: provider }, headers })).json).toEqual({
      status: 'OK',
      createdNew: true,
    });
    expect(first.logs.join('')).not.toContain('api_keys is unset');
    // Another core sees a write once its notification arrives; reloading stands for that wait here.
    const read = async (other: typeof first) => {
      await other.app.services.multitenancy.cache.reload();
      return call(other.app, 'GET', '/recipe/multitenancy/tenant/v2');
    };
    expect((await read(rotated)).json.thirdParty.providers[0].clients).toEqual(provider.clients);
    const lost = await read(withoutOld);
    expect([lost.statusCode, expectText(lost)]).toEqual([
      500,
      "The secrets of provider 'fake-oidc' in tenant 'public' are sealed with a key 'totp_secret_keys' does not list",
    ]);
    expect((await putProvider(rotated.app)).json).toEqual({ status: 'OK', createdNew: false });
    const { rows } = await first.db.pool.query('SELECT secrets_key_id FROM tenant_thirdparty_providers');
    expect(rows).toEqual([{ secrets_key_id: 'new' }]);
    expect((await read(withoutOld)).json.thirdParty.providers[0].clients).toEqual(provider.clients);
  });
});

describe('concurrent writes', () => {
  const t = useTestApp();

  it('creates a tenant once when 20 requests create it together', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(t.app, 'PUT', '/recipe/multitenancy/tenant/v2', { body: { tenantId: 'race', firstFactors: [`f${i}`] } }),
      ),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(20).fill(200));
    expect(answers.filter((answer) => answer.json.createdNew === true)).toHaveLength(1);
    const { rows } = await t.db.pool.query("SELECT first_factors FROM tenants WHERE tenant_id = 'race'");
    expect(rows).toHaveLength(1);
  });

  it('keeps one row per provider and a stable order when providers are written together', async () => {
    await call(t.app, 'PUT', '/recipe/multitenancy/tenant/v2', { body: { tenantId: 'many' } });
    const ids = Array.from({ length: 10 }, (_, i) => `p${i}`);
    await Promise.all(
      [...ids, ...ids].map((thirdPartyId) =>
        call(t.app, 'PUT', '/many/recipe/multitenancy/config/thirdparty', { body: { config: { thirdPartyId, clients: [] } } }),
      ),
    );
    const { rows } = await t.db.pool.query<{ position: number }>(
      "SELECT position FROM tenant_thirdparty_providers WHERE tenant_id = 'many'",
    );
    expect(rows).toHaveLength(10);
    expect(new Set(rows.map((row) => row.position)).size).toBe(10);
  });
});
