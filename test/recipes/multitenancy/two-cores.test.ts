import crypto from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { buildApp } from '../../../src/app.js';
import { createPool } from '../../../src/db/pool.js';
import { migrate } from '../../../src/db/migrate.js';
import { createLogger } from '../../../src/logger.js';
import { databaseUrl, testConfig } from '../../helper.js';

// Two cores, each with its own pool as two processes would have, on one schema: a tenant created or removed on
// either is seen by the other through the PostgreSQL notification, before the 10 s poll (contract T-2, T-6.9). The
// bound is loose for a loaded machine; the notification itself takes milliseconds.
describe('the tenant list across two cores', () => {
  const schema = `tenants_${crypto.randomBytes(5).toString('hex')}`;
  const pools: pg.Pool[] = [];
  const cores: FastifyInstance[] = [];
  const logs: string[] = [];

  beforeAll(async () => {
    pools.push(...[0, 1].map(() => createPool({ connectionString: databaseUrl, schema, size: 4, poolMode: 'session' })));
    await migrate(pools[0], schema);
    const config = testConfig({ log_level: 'DEBUG' });
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logs.push(String(chunk));
        done();
      },
    });
    for (const pool of pools) {
      const core = await buildApp({ config, pool, logger: createLogger(config, sink) });
      await core.ready();
      cores.push(core);
    }
  });

  afterAll(async () => {
    await Promise.all(cores.map((core) => core.close()));
    await pools[0].query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await Promise.all(pools.map((pool) => pool.end()));
  });

  const tenantOn = async (core: FastifyInstance, tenantId: string) =>
    (await core.inject({ method: 'GET', url: `/${tenantId}/recipe/multitenancy/tenant/v2` })).json().status as string;
  const providerOn = (core: FastifyInstance, tenantId: string) =>
    core.inject({
      method: 'PUT',
      url: `/${tenantId}/recipe/multitenancy/config/thirdparty`,
      payload: { config: { thirdPartyId: 'fake-oidc', clients: [{ clientId: 'c', clientSecret: 'two-cores-client-secret' }] } },
    });

  async function waitUntil(check: () => Promise<boolean>): Promise<number> {
    const started = Date.now();
    while (!(await check())) {
      if (Date.now() - started > 8000) throw new Error('not seen within 8 s');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return Date.now() - started;
  }

  it('sees a tenant created on either core, and its removal', async () => {
    const [a, b] = cores;
    await waitUntil(async () => cores.every((core) => core.services.multitenancy.cache.listening));
    // Both caches are loaded: an unknown tenant is not looked up in the database.
    expect(await tenantOn(b, 'acme')).toBe('TENANT_NOT_FOUND_ERROR');
    expect((await providerOn(b, 'acme')).statusCode).toBe(400);

    const created = await a.inject({ method: 'PUT', url: '/recipe/multitenancy/tenant/v2', payload: { tenantId: 'acme' } });
    expect(created.json()).toEqual({ status: 'OK', createdNew: true });
    // The writing core at once; the other within the notification's latency.
    expect((await providerOn(a, 'acme')).json()).toEqual({ status: 'OK', createdNew: true });
    const seenOnB = await waitUntil(async () => (await providerOn(b, 'acme')).statusCode === 200);
    expect(seenOnB).toBeLessThan(5000);

    await b.inject({ method: 'PUT', url: '/recipe/multitenancy/tenant/v2', payload: { tenantId: 'globex' } });
    const seenOnA = await waitUntil(async () => (await providerOn(a, 'globex')).statusCode === 200);
    expect(seenOnA).toBeLessThan(5000);

    await b.inject({ method: 'POST', url: '/recipe/multitenancy/tenant/remove', payload: { tenantId: 'acme' } });
    await waitUntil(async () => (await providerOn(a, 'acme')).statusCode === 400);
    expect(await tenantOn(a, 'acme')).toBe('TENANT_NOT_FOUND_ERROR');
    expect(await tenantOn(a, 'globex')).toBe('OK');
  });

  it('never logs a client secret, even at DEBUG', () => {
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.join('')).not.toContain('two-cores-client-secret');
    expect(logs.join('')).not.toMatch(/clientSecret/);
  });
});
