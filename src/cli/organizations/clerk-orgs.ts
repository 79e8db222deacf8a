import { asObject, nonEmptyObject } from '../readers/carry.js';
import type { ClerkApiUsers } from '../readers/clerk.js';
import type { SourceOrganization } from './plan.js';

/**
 * Clerk's organizations as the Backend API's users carry them (`organization_memberships`: `role` and the
 * `organization` with `id`, `name`, `slug`, metadata). Clerk sets login methods per instance, not per organization,
 * so the tenants' `firstFactors` come from the mapping's organizations.firstFactors, else are left unset.
 */
export function clerkOrganizations(users: ClerkApiUsers): SourceOrganization[] {
  const organizations = new Map<string, SourceOrganization>();
  for (const [userId, user] of users) {
    for (const membership of list(user.organization_memberships)) {
      const organization = asObject(membership.organization) ?? {};
      const id = text(organization.id) ?? text(membership.organization_id) ?? text(organization.slug);
      if (id === undefined) continue;
      let found = organizations.get(id);
      if (found === undefined) {
        found = describe(organization, id);
        organizations.set(id, found);
      }
      const role = text(membership.role);
      found.members.set(userId, [...(found.members.get(userId) ?? []), ...(role === undefined ? [] : [role])]);
    }
  }
  return [...organizations.values()];
}

function describe(organization: Record<string, unknown>, id: string): SourceOrganization {
  const metadata = nonEmptyObject({
    ...(nonEmptyObject(organization.public_metadata) !== undefined && { public_metadata: organization.public_metadata }),
    ...(nonEmptyObject(organization.private_metadata) !== undefined && { private_metadata: organization.private_metadata }),
  });
  const notCarried: string[] = [];
  if (metadata !== undefined) notCarried.push('metadata: the core has no place for it (kept in the report)');
  if (typeof organization.max_allowed_memberships === 'number' && organization.max_allowed_memberships > 0)
    notCarried.push(`max_allowed_memberships ${organization.max_allowed_memberships}: the core sets no limit`);
  const slug = text(organization.slug);
  return {
    sourceId: id,
    // A slug is Clerk's own url-safe id; an organization without one (slugs can be turned off) is named by its id.
    fields: { id, slug: slug ?? id, name: text(organization.name) ?? slug ?? id },
    name: text(organization.name),
    ...(slug !== undefined && { displayName: text(organization.name) }),
    metadata,
    firstFactors: null,
    notCarried,
    members: new Map(),
  };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function list(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.map((item) => asObject(item)).filter((item) => item !== undefined) : [];
}
