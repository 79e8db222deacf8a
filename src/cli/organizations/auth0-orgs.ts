import fs from 'node:fs';
import { CliError } from '../cli-error.js';
import { asObject, nonEmptyObject } from '../readers/carry.js';
import type { SourceOrganization } from './plan.js';

// Auth0's enterprise strategies: the connection lives at Auth0 (or the customer's IdP) and no tenant can take it.
const ENTERPRISE = new Set([
  'ad',
  'adfs',
  'auth0-adldap',
  'google-apps',
  'ip',
  'office365',
  'oidc',
  'okta',
  'pingfederate',
  'samlp',
  'sharepoint',
  'waad',
]);

/**
 * The `--orgs` file: one JSON array, an element per organization as `GET /api/v2/organizations` answers it, with
 * `members` as `GET …/{id}/members?fields=user_id,email,name,roles` answers and `enabled_connections` as
 * `GET …/{id}/enabled_connections` answers (contract-multitenancy T-5, docs/migrate-auth0.md).
 */
export function loadAuth0Organizations(path: string): SourceOrganization[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CliError(
      `${path}: ${error instanceof SyntaxError ? error.message : 'cannot be read'} (expected the organizations: a JSON array)`,
    );
  }
  if (!Array.isArray(parsed)) throw new CliError(`${path}: expected the organizations as one JSON array`);
  return parsed.map((element, position) => {
    const organization = asObject(element);
    const id = text(organization?.id);
    if (organization === undefined || id === undefined) throw new CliError(`${path}: organization ${position + 1} has no id`);
    return auth0Organization(organization, id);
  });
}

function auth0Organization(organization: Record<string, unknown>, id: string): SourceOrganization {
  const members = new Map<string, string[]>();
  for (const member of list(organization.members)) {
    const userId = text(member.user_id);
    if (userId === undefined) continue;
    const roles = list(member.roles)
      .map((role) => text(role.name))
      .filter((role): role is string => role !== undefined);
    members.set(userId, [...(members.get(userId) ?? []), ...roles]);
  }
  const notCarried: string[] = [];
  const factors = new Set<string>();
  const connections = Array.isArray(organization.enabled_connections) ? list(organization.enabled_connections) : undefined;
  for (const enabled of connections ?? []) {
    const connection = asObject(enabled.connection) ?? {};
    const name = text(connection.name) ?? text(enabled.connection_id) ?? 'unnamed';
    const strategy = text(connection.strategy) ?? '';
    if (strategy === 'auth0') factors.add('emailpassword');
    else if (strategy === 'email') ['otp-email', 'link-email'].forEach((factor) => factors.add(factor));
    else if (strategy === 'sms') factors.add('otp-phone');
    else if (ENTERPRISE.has(strategy) || strategy === '')
      notCarried.push(
        `connection ${name} (${strategy || 'no strategy'}): enterprise connections stay at Auth0; configure the provider in the tenant`,
      );
    else factors.add('thirdparty');
    if (enabled.assign_membership_on_login === true)
      notCarried.push(`connection ${name}: assign_membership_on_login (members added at first login) is not kept`);
    if (enabled.is_signup_enabled === true) notCarried.push(`connection ${name}: is_signup_enabled is the app's choice, not the tenant's`);
  }
  if (nonEmptyObject(organization.branding) !== undefined) notCarried.push('branding: the core has no place for it');
  const metadata = nonEmptyObject(organization.metadata);
  if (metadata !== undefined) notCarried.push('metadata: the core has no place for it (kept in the report)');
  return {
    sourceId: id,
    fields: { id, name: text(organization.name) ?? id },
    name: text(organization.name),
    displayName: text(organization.display_name),
    metadata,
    // Without enabled_connections in the file, the tenant is left to the SDK's recipe list rather than shut.
    firstFactors: connections === undefined ? null : [...factors],
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
