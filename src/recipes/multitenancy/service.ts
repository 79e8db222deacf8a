import type { Logger } from 'pino';
import pg from 'pg';
import type { Config } from '../../config/config.js';
import { withTransaction } from '../../db/transaction.js';
import { coreError } from '../../errors.js';
import { cdiAtLeast, type CdiVersion } from '../../http/cdi-version.js';
import type { LoginRecipe } from '../../http/route.js';
import type { TotpSecretBox } from '../../keys/secret-box.js';
import type { Provider } from './provider-config.js';
import { openProvider, sealProvider } from './provider-secrets.js';
import * as repository from './repository.js';
import { TenantCache } from './tenant-cache.js';
import { TenantMembership } from './membership.js';
import { loginEnabled } from './login-gate.js';
import type { TenantUpdate } from './tenant-input.js';
import { PUBLIC_TENANT } from './tenant-id.js';
import type { TenantSettingKey, TenantSettings } from '../../service-deps.js';

export interface MultitenancyDependencies {
  config: Readonly<Config>;
  pool: pg.Pool;
  clock: () => number;
  log: Logger;
  totpSecrets: TotpSecretBox;
}

const notEnabled = {
  emailpassword: 'EMAIL_PASSWORD_NOT_ENABLED',
  passwordless: 'PASSWORDLESS_NOT_ENABLED',
  thirdparty: 'THIRD_PARTY_NOT_ENABLED',
} as const;

/** A tenant as the CDI answers it (contract-multitenancy T-1.3). */
export interface Tenant {
  tenantId: string;
  thirdParty: { providers: Provider[] };
  firstFactors?: string[];
  requiredSecondaryFactors?: string[];
  coreConfig: Record<string, number>;
}

/** A tenant's rows as stored, its providers' secrets still sealed. */
interface StoredTenant {
  tenantId: string;
  row: repository.TenantRow;
  providers: repository.ProviderRow[];
}

/**
 * Tenants as configuration: create, update, read, list, remove, and each tenant's third-party providers; the settings
 * each tenant overrides, as the recipes apply them.
 */
export class MultitenancyService implements TenantSettings {
  readonly cache: TenantCache<StoredTenant>;
  readonly membership: TenantMembership;

  constructor(private readonly deps: MultitenancyDependencies) {
    this.membership = new TenantMembership(deps);
    const listen = deps.config.postgresql_pool_mode === 'session';
    this.cache = new TenantCache({
      pool: deps.pool,
      log: deps.log,
      load: () => this.readStored(),
      ...(listen && { connectListener: () => connectLike(deps.pool) }),
    });
  }

  exists(tenantId: string): Promise<boolean> {
    return this.cache.has(tenantId);
  }

  /** The cdi 5.0-and-older recipe gate: throws the recipe's 403 where the tenant's firstFactors do not enable it. */
  async assertLoginEnabled(tenantId: string, recipe: LoginRecipe, version: CdiVersion): Promise<void> {
    if (cdiAtLeast(version, '5.1')) return;
    const stored = await this.cache.lastLoaded(tenantId);
    if (!loginEnabled(stored?.row.first_factors, recipe, version)) throw coreError(notEnabled[recipe]);
  }

  async valueIn(tenantId: string, key: TenantSettingKey): Promise<number> {
    const stored = tenantId === PUBLIC_TENANT ? undefined : await this.cache.lastLoaded(tenantId);
    return stored?.row.core_config[key] ?? this.deps.config[key];
  }

  async longest(key: TenantSettingKey): Promise<number> {
    const overrides = (await this.cache.allLoaded()).map((stored) => stored.row.core_config[key] ?? 0);
    return Math.max(this.deps.config[key], ...overrides);
  }

  async getTenant(tenantId: string): Promise<Tenant | undefined> {
    const stored = this.cache.current(tenantId) ?? (await this.readStored(tenantId))[0];
    return stored && this.open(stored);
  }

  async listTenants(): Promise<Tenant[]> {
    return (await this.readStored()).map((stored) => this.open(stored));
  }

  async createOrUpdate(update: TenantUpdate): Promise<{ status: 'OK'; createdNew: boolean }> {
    const createdNew = await this.write(async (client) => {
      let created = false;
      let row: repository.TenantRow | undefined;
      // A removal by another request between the two statements leaves nothing to lock: the tenant is created again.
      while (!row) {
        created = (await repository.insertTenant(client, update.tenantId, this.deps.clock())) || created;
        row = await repository.lockTenant(client, update.tenantId);
      }
      if (update.firstFactors !== undefined) row.first_factors = update.firstFactors;
      if (update.requiredSecondaryFactors !== undefined) row.required_secondary_factors = update.requiredSecondaryFactors;
      for (const [key, value] of Object.entries(update.coreConfig ?? {})) {
        if (value === null) delete row.core_config[key];
        else row.core_config[key] = value;
      }
      await repository.updateTenant(client, row);
      return created;
    });
    return { status: 'OK', createdNew };
  }

  async removeTenant(tenantId: string): Promise<{ status: 'OK'; didExist: boolean }> {
    const didExist = await this.write((client) => repository.deleteTenant(client, tenantId));
    return { status: 'OK', didExist };
  }

  /** Adds or replaces a provider of an existing tenant; its secrets are sealed before they reach the database. */
  async putProvider(tenantId: string, provider: Provider): Promise<{ status: 'OK'; createdNew: boolean } | undefined> {
    const stored = sealProvider(this.deps.totpSecrets, tenantId, provider);
    const createdNew = await this.write(async (client) => {
      if (!(await repository.lockTenant(client, tenantId))) return undefined;
      return repository.upsertProvider(client, tenantId, stored);
    });
    if (createdNew === undefined) return undefined;
    // Anyone who can reach the core can read these secrets back (the SDK needs them): say so while no key guards it.
    if (!this.deps.config.api_keys) {
      this.deps.log.warn(
        { tenantId, thirdPartyId: provider.thirdPartyId },
        'a third-party provider with its secrets was stored while api_keys is unset',
      );
    }
    return { status: 'OK', createdNew };
  }

  async removeProvider(tenantId: string, thirdPartyId: string): Promise<{ status: 'OK'; didConfigExist: boolean }> {
    const didConfigExist = await this.write((client) => repository.deleteProvider(client, tenantId, thirdPartyId));
    return { status: 'OK', didConfigExist };
  }

  start(): void {
    this.cache.start();
  }

  stop(): Promise<void> {
    return this.cache.stop();
  }

  /** Runs a write with the notification to every core in its transaction, then reloads this core's cache. */
  private async write<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const result = await withTransaction(this.deps.pool, async (client) => {
      const value = await fn(client);
      await repository.notifyTenantsChanged(client);
      return value;
    });
    // Done is done: were the reload to fail, the notification or the next poll brings the change.
    await this.cache.reload().catch((err: unknown) => this.deps.log.warn({ err }, 'reloading the tenant list failed'));
    return result;
  }

  /** The stored rows of every tenant (or one); opened into the CDI shape per read, so a key change shows at once. */
  private async readStored(tenantId?: string): Promise<StoredTenant[]> {
    const rows = await repository.findTenants(this.deps.pool, tenantId);
    if (rows.length === 0) return [];
    const providers = await repository.findProviders(
      this.deps.pool,
      rows.map((row) => row.tenant_id),
    );
    return rows.map((row) => ({
      tenantId: row.tenant_id,
      row,
      providers: providers.filter((provider) => provider.tenant_id === row.tenant_id),
    }));
  }

  private open({ row, providers }: StoredTenant): Tenant {
    return {
      tenantId: row.tenant_id,
      thirdParty: {
        providers: providers.map((provider) => openProvider(this.deps.totpSecrets, row.tenant_id, repository.storedOf(provider))),
      },
      ...(row.first_factors !== null && { firstFactors: row.first_factors }),
      ...(row.required_secondary_factors !== null && { requiredSecondaryFactors: row.required_secondary_factors }),
      coreConfig: row.core_config,
    };
  }
}

// A connection made as the pool makes its own (same settings, same host choice), but not part of it.
async function connectLike(pool: pg.Pool): Promise<pg.Client> {
  const options = (pool as unknown as { options: pg.PoolConfig & { Client?: typeof pg.Client } }).options;
  const Client = options.Client ?? pg.Client;
  const client = new Client(options);
  try {
    await client.connect();
  } catch (error) {
    client.end().catch(() => undefined);
    throw error;
  }
  return client;
}
