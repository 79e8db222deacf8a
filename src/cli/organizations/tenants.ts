import type { CoreClient } from '../core-client.js';
import { asRecord } from '../core-client.js';
import { CliError } from '../cli-error.js';
import type { PlannedTenant } from './plan.js';

/** A tenant as the report lists it: what the source said of it, and whether this run created it. */
export interface ReportedTenant {
  tenantId: string;
  sourceId: string;
  name: string | null;
  displayName: string | null;
  metadata: Record<string, unknown> | null;
  firstFactors: string[] | null;
  notCarried: string[];
  /** A dry run: whether the core holds it already. */
  existsInCore?: boolean;
  createdByRun: boolean;
}

/** The tenant ids the core holds (M4). */
export async function listTenants(client: CoreClient): Promise<Set<string>> {
  const reply = await client.send('GET', '/recipe/multitenancy/tenant/list/v2');
  const tenants = asRecord(reply.json).tenants;
  if (reply.status !== 200 || !Array.isArray(tenants))
    throw new CliError(`GET /recipe/multitenancy/tenant/list/v2 answered ${reply.status}: ${reply.text.trim().slice(0, 300)}`);
  return new Set(tenants.map((tenant) => String(asRecord(tenant).tenantId)));
}

/**
 * Creates the tenants before any user is sent (M2), each with its login methods; a tenant the core holds already is
 * left as it is (the PUT names it only, and answers createdNew false). `createdBefore`: created by an earlier
 * invocation of the same run.
 */
export async function createTenants(
  client: CoreClient,
  planned: readonly PlannedTenant[],
  createdBefore: readonly string[],
): Promise<ReportedTenant[]> {
  const existing = await listTenants(client);
  const reported: ReportedTenant[] = [];
  for (const tenant of planned) {
    const body = existing.has(tenant.tenantId)
      ? { tenantId: tenant.tenantId }
      : { tenantId: tenant.tenantId, firstFactors: tenant.firstFactors };
    const reply = await client.send('PUT', '/recipe/multitenancy/tenant/v2', { body });
    const answer = asRecord(reply.json);
    if (reply.status !== 200 || answer.status !== 'OK')
      throw new CliError(
        `tenant ${tenant.tenantId} (organization ${tenant.sourceId}) cannot be created: ${reply.status} ${reply.text.trim().slice(0, 300)}`,
      );
    reported.push({ ...tenant, createdByRun: answer.createdNew === true || createdBefore.includes(tenant.tenantId) });
  }
  return reported;
}

/** A dry run creates nothing: it says which tenants exist already. */
export async function describeTenants(client: CoreClient, planned: readonly PlannedTenant[]): Promise<ReportedTenant[]> {
  const existing = await listTenants(client);
  return planned.map((tenant) => ({ ...tenant, existsInCore: existing.has(tenant.tenantId), createdByRun: false }));
}

/**
 * Removes a tenant the run created once no user is left in it (M3); a tenant still holding users (added after the
 * run) is kept. Returns whether it was removed.
 */
export async function removeTenantIfEmpty(client: CoreClient, tenantId: string): Promise<'removed' | 'gone' | 'not empty'> {
  const count = await client.send('GET', `/${tenantId}/users/count`);
  if (count.status === 200 && Number(asRecord(count.json).count) > 0) return 'not empty';
  const reply = await client.send('POST', '/recipe/multitenancy/tenant/remove', { body: { tenantId } });
  const answer = asRecord(reply.json);
  if (reply.status !== 200 || answer.status !== 'OK')
    throw new CliError(`tenant ${tenantId} cannot be removed: ${reply.status} ${reply.text.trim().slice(0, 300)}`);
  return answer.didExist === true ? 'removed' : 'gone';
}
