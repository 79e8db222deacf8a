import type { BulkImportUser, SourceRecord, UserRole } from '../bulk-user.js';
import { resolveRoles, type Mapping } from '../mapping.js';
import type { OpenedSource } from '../readers/index.js';
import type { Membership, OrganizationPlan } from './plan.js';

const PUBLIC = 'public';

/**
 * The same pass over the export, each user's login methods put in the tenants of their organizations (and `public`
 * when `keepPublic`), their organization roles assigned in those tenants. A user of no organization keeps `public`,
 * or the run's one tenant (Identity Platform's `--tenant`).
 */
export function withOrganizations(
  source: OpenedSource,
  plan: OrganizationPlan,
  mapping: Mapping | undefined,
  dryRun = false,
): OpenedSource {
  async function* records(): AsyncGenerator<SourceRecord> {
    for await (const record of source.records) {
      const placed = placeInTenants(record, plan, mapping);
      yield dryRun ? inPublicOnly(placed) : placed;
    }
  }
  return { ...source, records: records() };
}

export function placeInTenants(record: SourceRecord, plan: OrganizationPlan, mapping: Mapping | undefined): SourceRecord {
  const user = record.user;
  if (user === undefined) return record;
  const memberships = membershipsOf(user, plan);
  if (memberships.length === 0 && plan.everyone === undefined) return record;
  const keepPublic = plan.everyone === undefined && plan.settings.keepPublic;
  const home = plan.everyone === undefined ? [] : [plan.everyone];
  const tenantIds = [...new Set([...(keepPublic ? [PUBLIC] : []), ...home, ...memberships.map((m) => m.tenantId)])].sort();
  const carried = [...(record.carried ?? [])];
  const notCarried = [...(record.notCarried ?? [])];

  // Roles the reader assigned app-wide stay in public; a user no longer in public holds them in each of its tenants.
  const roles = new Map<string, Set<string>>();
  const assign = (role: string, tenants: readonly string[]) => {
    const set = roles.get(role) ?? new Set<string>();
    tenants.forEach((tenant) => set.add(tenant));
    roles.set(role, set);
  };
  for (const entry of user.userRoles ?? []) {
    assign(entry.role, entry.tenantIds.includes(PUBLIC) && !tenantIds.includes(PUBLIC) ? tenantIds : entry.tenantIds);
  }
  for (const membership of memberships) {
    const { roles: names, unmapped } = resolveRoles(
      membership.roles,
      mapping === undefined ? carryByName : { ...mapping, unmapped: 'keep' },
    );
    for (const role of names) {
      if (plan.settings.roles === 'prefixed') assign(`${membership.tenantId}:${role}`, tenantIds.includes(PUBLIC) ? [PUBLIC] : tenantIds);
      else assign(role, [membership.tenantId]);
    }
    if (names.length > 0) carried.push(`roles in ${membership.tenantId}: ${names.join(', ')}`);
    if (unmapped.length > 0) notCarried.push(`roles ${unmapped.join(', ')} in ${membership.tenantId}: not a role name the core takes`);
  }
  carried.push(`tenants: ${tenantIds.join(', ')}`);
  const userRoles: UserRole[] = [...roles].map(([role, tenants]) => ({ role, tenantIds: [...tenants].sort() }));
  const placed: BulkImportUser = {
    ...user,
    loginMethods: user.loginMethods.map((method) => ({ ...method, tenantIds })) as BulkImportUser['loginMethods'],
    ...(userRoles.length > 0 && { userRoles }),
  };
  return { ...record, user: placed, carried, ...(notCarried.length > 0 && { notCarried }) };
}

/**
 * A dry run creates no tenant, so the users it asks the core about are checked as in public, the report still
 * saying which tenants each would be in (withoutRoles in declare-roles.ts does the same for roles).
 */
function inPublicOnly(record: SourceRecord): SourceRecord {
  if (record.user === undefined) return record;
  const loginMethods = record.user.loginMethods.map(({ tenantIds: _tenants, ...method }) => method) as BulkImportUser['loginMethods'];
  const userRoles = record.user.userRoles?.map((entry) => ({ ...entry, tenantIds: ['public'] }));
  return { ...record, user: { ...record.user, loginMethods, ...(userRoles !== undefined && { userRoles }) } };
}

// Organization roles carry over by their names, with or without a mapping; the mapping may rename them, or drop one
// by mapping it to an empty list (contract-multitenancy T-5).
const carryByName: Mapping = {
  roles: new Map(),
  map: new Map(),
  unmapped: 'keep',
  roleClaims: [],
  userEditableClaims: new Set(),
  organizations: { keepPublic: true, roles: 'scoped' },
};

function membershipsOf(user: BulkImportUser, plan: OrganizationPlan): Membership[] {
  const keys = [user.externalUserId, stringOf(user.userMetadata?.username)].filter((key): key is string => key !== undefined);
  for (const key of keys) {
    const found = plan.memberships.get(key);
    if (found !== undefined) return found;
  }
  return [];
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
