import { CliError } from '../cli-error.js';
import { DEFAULT_ORGANIZATIONS, type Mapping } from '../mapping.js';
import type { MigrateOptions } from '../options.js';
import type { ClerkApiUsers } from '../readers/clerk.js';
import { loadAuth0Organizations } from './auth0-orgs.js';
import { clerkOrganizations } from './clerk-orgs.js';
import { keycloakOrganizations } from './keycloak-orgs.js';
import { planOrganizations, type OrganizationPlan, type SourceOrganization } from './plan.js';
import { tenantIdFrom } from './tenant-id.js';

/**
 * The run's tenants and memberships, read before anything is sent; undefined when the export has no organizations
 * and the run names no --tenant (every user then stays in public, as before).
 */
export async function loadOrganizationPlan(
  options: MigrateOptions,
  mapping: Mapping | undefined,
  clerkApi: ClerkApiUsers | undefined,
): Promise<OrganizationPlan | undefined> {
  const settings = mapping?.organizations ?? DEFAULT_ORGANIZATIONS;
  let organizations: SourceOrganization[] = [];
  let field: 'name' | 'slug' | 'alias' = 'name';
  if (options.source === 'auth0' && options.orgsPath !== undefined) organizations = loadAuth0Organizations(options.orgsPath);
  else if (options.source === 'clerk' && clerkApi !== undefined) {
    organizations = clerkOrganizations(clerkApi);
    field = 'slug';
  } else if (options.source === 'keycloak') {
    organizations = await keycloakOrganizations(options.file);
    field = 'alias';
  }
  const home = options.tenant === undefined ? undefined : homeTenant(options.tenant, settings.firstFactors ?? null);
  if (organizations.length === 0 && home === undefined) return undefined;
  const plan = planOrganizations(home === undefined ? organizations : [home, ...organizations], field, settings);
  if (home !== undefined) plan.everyone = plan.tenants[0]?.tenantId;
  return plan;
}

// The export's users all belong to this tenant, and only to it: the same email in two runs is two users.
function homeTenant(tenant: string, firstFactors: string[] | null): SourceOrganization {
  const tenantId = tenantIdFrom(tenant);
  if (tenantId === undefined) throw new CliError(`--tenant ${tenant} leaves no tenant id (a-z, 0-9 and -)`);
  return {
    sourceId: tenant,
    fields: { id: tenantId, name: tenantId, slug: tenantId, alias: tenantId },
    firstFactors,
    notCarried: [],
    members: new Map(),
  };
}
