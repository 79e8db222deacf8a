import { CliError } from '../cli-error.js';
import type { OrganizationSettings, TenantIdField } from '../mapping.js';
import { tenantIdFrom } from './tenant-id.js';

/** An organization (or realm, or Identity Platform tenant) as a source describes it. */
export interface SourceOrganization {
  /** The source's own id of it (`org_…`, a Clerk id, a Keycloak id, a GCIP tenant id). */
  sourceId: string;
  /** The fields a tenant id may be made from. */
  fields: Partial<Record<TenantIdField, string>>;
  name?: string;
  displayName?: string;
  metadata?: Record<string, unknown>;
  /** The tenant's login methods; null: left unset (the SDK offers every recipe the app initialises). */
  firstFactors: string[] | null;
  /** What the source holds about it that no tenant keeps, each as `<field>: <why>`. */
  notCarried: string[];
  /** Member's source user id → their role names in this organization. */
  members: Map<string, string[]>;
}

/** A tenant the run creates (or finds), as the report lists it. */
export interface PlannedTenant {
  tenantId: string;
  sourceId: string;
  name: string | null;
  displayName: string | null;
  metadata: Record<string, unknown> | null;
  firstFactors: string[] | null;
  notCarried: string[];
}

export interface Membership {
  tenantId: string;
  roles: string[];
}

/** Every tenant of a run and, by source user id, the tenants each user belongs to. */
export interface OrganizationPlan {
  tenants: PlannedTenant[];
  memberships: Map<string, Membership[]>;
  settings: OrganizationSettings;
  /** Users of the export that are members of no organization go here; undefined: `public`. */
  everyone?: string;
}

/**
 * Turns the source's organizations into tenants. Two organizations whose ids come out the same stop the run before
 * anything is sent (exit 2), both named: merging them would put two customers' users in one tenant.
 */
export function planOrganizations(
  organizations: readonly SourceOrganization[],
  field: TenantIdField,
  settings: OrganizationSettings,
): OrganizationPlan {
  const bySourceId = new Map<string, SourceOrganization>();
  const tenants: PlannedTenant[] = [];
  const problems: string[] = [];
  const memberships = new Map<string, Membership[]>();
  for (const organization of organizations) {
    const from = organization.fields[settings.tenantId ?? field] ?? organization.fields[field] ?? organization.sourceId;
    const tenantId = tenantIdFrom(from);
    if (tenantId === undefined) {
      problems.push(
        `organization ${organization.sourceId}: ${settings.tenantId ?? field} ${JSON.stringify(from)} leaves no tenant id (a-z, 0-9)`,
      );
      continue;
    }
    const twin = bySourceId.get(tenantId);
    if (twin !== undefined) {
      if (twin.sourceId !== organization.sourceId)
        problems.push(`organizations ${twin.sourceId} and ${organization.sourceId} would both be tenant ${tenantId}`);
      continue;
    }
    bySourceId.set(tenantId, organization);
    tenants.push({
      tenantId,
      sourceId: organization.sourceId,
      name: organization.name ?? null,
      displayName: organization.displayName ?? null,
      metadata: organization.metadata ?? null,
      firstFactors: organization.firstFactors ?? settings.firstFactors ?? null,
      notCarried: organization.notCarried,
    });
    for (const [userId, roles] of organization.members) {
      const list = memberships.get(userId) ?? [];
      list.push({ tenantId, roles });
      memberships.set(userId, list);
    }
  }
  if (problems.length > 0) {
    throw new CliError(
      `${problems.join('\n')}\nnothing was sent: choose another field with organizations.tenantId in the mapping, or rename one at the source`,
    );
  }
  return { tenants, memberships, settings };
}
