import type { Queryable } from '../../db/pool.js';
import type { Provider } from './provider-config.js';
import type { StoredProvider } from './provider-secrets.js';

// PostgreSQL channel every core listens on: a write to a tenant or its providers notifies it in the same transaction.
export const TENANTS_CHANNEL = 'identity_core_tenants';

export interface TenantRow {
  tenant_id: string;
  first_factors: string[] | null;
  required_secondary_factors: string[] | null;
  core_config: Record<string, number>;
}

export interface ProviderRow {
  tenant_id: string;
  provider: Provider;
  secrets: string | null;
  secrets_key_id: string | null;
}

export const storedOf = (row: ProviderRow): StoredProvider => ({
  provider: row.provider,
  secrets: row.secrets === null ? null : { secretKey: row.secrets, secretKeyId: row.secrets_key_id },
});

/** Every tenant (or one), `public` first, then in creation order. */
export async function findTenants(db: Queryable, tenantId?: string): Promise<TenantRow[]> {
  const { rows } = await db.query<TenantRow>(
    `SELECT tenant_id, first_factors, required_secondary_factors, core_config FROM tenants
      WHERE $1::text IS NULL OR tenant_id = $1 ORDER BY tenant_id <> 'public', position`,
    [tenantId ?? null],
  );
  return rows;
}

/** Which of these tenant ids exist (bulk import checks a request's tenants in one query). */
export async function findExistingTenantIds(db: Queryable, tenantIds: string[]): Promise<string[]> {
  if (tenantIds.length === 0) return [];
  const { rows } = await db.query<{ tenant_id: string }>('SELECT tenant_id FROM tenants WHERE tenant_id = ANY($1::text[])', [tenantIds]);
  return rows.map((row) => row.tenant_id);
}

/** The providers of the given tenants, in the order each tenant's were first written. */
export async function findProviders(db: Queryable, tenantIds: string[]): Promise<ProviderRow[]> {
  const { rows } = await db.query<ProviderRow>(
    `SELECT tenant_id, provider, secrets, secrets_key_id FROM tenant_thirdparty_providers
      WHERE tenant_id = ANY($1::text[]) ORDER BY tenant_id, position`,
    [tenantIds],
  );
  return rows;
}

/** Locks the tenant's row for the rest of the transaction; false when it does not exist. */
export async function lockTenant(db: Queryable, tenantId: string): Promise<TenantRow | undefined> {
  const { rows } = await db.query<TenantRow>(
    'SELECT tenant_id, first_factors, required_secondary_factors, core_config FROM tenants WHERE tenant_id = $1 FOR UPDATE',
    [tenantId],
  );
  return rows[0];
}

/** Creates the tenant with no login method; false when it already existed (another request won). */
export async function insertTenant(db: Queryable, tenantId: string, createdAt: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO tenants (tenant_id, created_at, first_factors) VALUES ($1, $2, '{}') ON CONFLICT (tenant_id) DO NOTHING`,
    [tenantId, createdAt],
  );
  return rowCount === 1;
}

export async function updateTenant(db: Queryable, row: TenantRow): Promise<void> {
  await db.query('UPDATE tenants SET first_factors = $2, required_secondary_factors = $3, core_config = $4 WHERE tenant_id = $1', [
    row.tenant_id,
    row.first_factors,
    row.required_secondary_factors,
    JSON.stringify(row.core_config),
  ]);
}

/** Removes the tenant and, by cascade, its providers. */
export async function deleteTenant(db: Queryable, tenantId: string): Promise<boolean> {
  const { rowCount } = await db.query("DELETE FROM tenants WHERE tenant_id = $1 AND tenant_id <> 'public'", [tenantId]);
  return rowCount === 1;
}

/** Replaces the provider with the same id in place, else appends it; true when it was new. */
export async function upsertProvider(db: Queryable, tenantId: string, stored: StoredProvider): Promise<boolean> {
  const { rows } = await db.query<{ created: boolean }>(
    `INSERT INTO tenant_thirdparty_providers (tenant_id, third_party_id, position, provider, secrets, secrets_key_id)
     VALUES ($1, $2, (SELECT coalesce(max(position), 0) + 1 FROM tenant_thirdparty_providers WHERE tenant_id = $1), $3, $4, $5)
     ON CONFLICT (tenant_id, third_party_id) DO UPDATE
       SET provider = excluded.provider, secrets = excluded.secrets, secrets_key_id = excluded.secrets_key_id
     RETURNING xmax = 0 AS created`,
    [
      tenantId,
      stored.provider.thirdPartyId,
      JSON.stringify(stored.provider),
      stored.secrets?.secretKey ?? null,
      stored.secrets?.secretKeyId ?? null,
    ],
  );
  return rows[0].created;
}

export async function deleteProvider(db: Queryable, tenantId: string, thirdPartyId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM tenant_thirdparty_providers WHERE tenant_id = $1 AND third_party_id = $2', [
    tenantId,
    thirdPartyId,
  ]);
  return rowCount === 1;
}

export async function notifyTenantsChanged(db: Queryable): Promise<void> {
  await db.query(`SELECT pg_notify('${TENANTS_CHANNEL}', current_schema())`);
}
