import { CliError } from '../cli-error.js';
import { asObject, nonEmptyObject } from '../readers/carry.js';
import { FileSource } from '../readers/file-source.js';
import { JsonStreamError, streamJsonArray } from '../readers/json-array-stream.js';
import type { SourceOrganization } from './plan.js';

/**
 * The realm export's `organizations` (Keycloak 25+, `OrganizationRepresentation`): `id`, `name`, `alias` (the tenant
 * id by default), `enabled`, `description`, `attributes`, `domains`, `identityProviders` and `members` (user
 * representations: `id`, `username`). A realm export of an older Keycloak has none.
 */
export async function keycloakOrganizations(path: string): Promise<SourceOrganization[]> {
  const organizations: SourceOrganization[] = [];
  try {
    for await (const element of streamJsonArray(new FileSource(path).chunks(), 'organizations')) {
      const organization = asObject(element);
      const id = text(organization?.id) ?? text(organization?.alias) ?? text(organization?.name);
      if (organization === undefined || id === undefined) continue;
      organizations.push(describe(organization, id));
    }
  } catch (error) {
    // An older Keycloak's realm, or a `<realm>-users-<n>.json` file: no organizations.
    if (error instanceof JsonStreamError && error.message.startsWith('no "organizations" array')) return [];
    if (error instanceof JsonStreamError || error instanceof SyntaxError) throw new CliError(`${path}: ${error.message}`);
    throw error;
  }
  return organizations;
}

function describe(organization: Record<string, unknown>, id: string): SourceOrganization {
  const name = text(organization.name);
  const alias = text(organization.alias) ?? name ?? id;
  const members = new Map<string, string[]>();
  for (const member of list(organization.members)) {
    // Members are user representations: matched by id, else by username (read from the user's profile).
    const key = text(member.id) ?? text(member.username);
    if (key !== undefined) members.set(key, []);
  }
  const notCarried: string[] = [];
  const domains = list(organization.domains)
    .map((domain) => text(domain.name))
    .filter((domain) => domain !== undefined);
  if (domains.length > 0) notCarried.push(`domains ${domains.join(', ')}: the core does not route users by email domain`);
  const providers = list(organization.identityProviders)
    .map((provider) => text(provider.alias))
    .filter((provider) => provider !== undefined);
  if (providers.length > 0)
    notCarried.push(`identityProviders ${providers.join(', ')}: configure them as the tenant's third-party providers`);
  const disabled = organization.enabled === false;
  if (disabled) notCarried.push('enabled false: the tenant is created with no login method (firstFactors [])');
  const attributes = nonEmptyObject(organization.attributes);
  if (attributes !== undefined) notCarried.push('attributes: the core has no place for them (kept in the report)');
  return {
    sourceId: id,
    fields: { id, alias, name: name ?? alias },
    name,
    displayName: text(organization.description),
    metadata: attributes,
    firstFactors: disabled ? [] : null,
    notCarried,
    members,
  };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function list(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.map((item) => asObject(item)).filter((item) => item !== undefined) : [];
}
