import fs from 'node:fs';
import { CliError } from './cli-error.js';

/**
 * The declared mapping of a run (`--mapping <file>`, YAML or JSON): which core roles the run declares, with their
 * permissions; which source role or group becomes which core role; what to do with the names it does not list; which
 * claims name roles; which claims users may edit. docs/migration-mapping.md describes the file.
 */
export interface Mapping {
  /** Core role → its permissions, declared once per run before any user is sent. */
  roles: Map<string, string[]>;
  /** Source role or group name → core roles. */
  map: Map<string, string[]>;
  /** `report`: a name the mapping does not list is reported, not carried; `keep`: it becomes a core role of that name. */
  unmapped: 'report' | 'keep';
  /** Claims (keys of the trusted metadata) whose values name roles: a string, a list of strings, or `true`. */
  roleClaims: string[];
  /** Source attributes users could edit at the source: carried under `userMetadata` instead of `appMetadata`. */
  userEditableClaims: Set<string>;
  /** How the source's organizations become tenants (docs/organizations.md); every key has a default. */
  organizations: OrganizationSettings;
}

export type TenantIdField = 'name' | 'id' | 'slug' | 'alias';

export interface OrganizationSettings {
  /** The organization field a tenant id is made from; undefined: the source's own (Auth0 name, Clerk slug, Keycloak alias). */
  tenantId?: TenantIdField;
  /** Members stay in `public` too, so they still sign in where they did before. */
  keepPublic: boolean;
  /** `scoped`: an org role is assigned in the org's tenant; `prefixed`: as `<tenant>:<role>` in public. */
  roles: 'scoped' | 'prefixed';
  /** The login methods of every tenant created, where the source does not say them (Clerk, Keycloak, Identity Platform). */
  firstFactors?: string[];
}

export const DEFAULT_ORGANIZATIONS: OrganizationSettings = { keepPublic: true, roles: 'scoped' };
const ORGANIZATION_KEYS = ['tenantId', 'keepPublic', 'roles', 'firstFactors'];

// The reference core's limit on a role name (contract M-4.3).
const MAX_ROLE = 255;
const KEYS = ['roles', 'map', 'unmapped', 'roleClaims', 'userEditableClaims', 'organizations'];

export async function loadMapping(path: string): Promise<Mapping> {
  let text: string;
  try {
    text = fs.readFileSync(path, 'utf8');
  } catch {
    throw new CliError(`cannot read ${path}`);
  }
  // The YAML parser loads only for a run with a mapping: it is a sizeable part of the command's start-up.
  const { default: YAML } = await import('yaml');
  let parsed: unknown;
  try {
    parsed = YAML.parse(text);
  } catch (error) {
    throw new CliError(`${path} is not YAML or JSON (${(error as Error).message.split('\n')[0]})`);
  }
  try {
    return parseMapping(parsed);
  } catch (error) {
    if (error instanceof MappingError) throw new CliError(`${path}: ${error.message}`);
    throw error;
  }
}

class MappingError extends Error {}

export function parseMapping(value: unknown): Mapping {
  if (!isObject(value)) throw new MappingError('the mapping must be an object with roles, map, unmapped, roleClaims, userEditableClaims');
  const unknown = Object.keys(value).filter((key) => !KEYS.includes(key));
  if (unknown.length > 0) throw new MappingError(`unknown key(s) ${unknown.join(', ')} (known: ${KEYS.join(', ')})`);

  const roles = new Map<string, string[]>();
  const declared = value.roles ?? {};
  if (!isObject(declared)) throw new MappingError('roles must map each core role to its list of permissions');
  for (const [rawRole, permissions] of Object.entries(declared)) {
    const role = roleName(rawRole, `roles.${rawRole}`);
    const list = permissions === null || permissions === undefined ? [] : permissions;
    if (!Array.isArray(list) || list.some((permission) => typeof permission !== 'string' || permission.trim() === '')) {
      throw new MappingError(`roles.${rawRole} must be a list of permissions (non-empty strings)`);
    }
    roles.set(role, [...new Set((list as string[]).map((permission) => permission.trim()))]);
  }

  const map = new Map<string, string[]>();
  const rules = value.map ?? {};
  if (!isObject(rules)) throw new MappingError('map must map each source role or group to a core role or a list of them');
  for (const [source, target] of Object.entries(rules)) {
    const targets = typeof target === 'string' ? [target] : target;
    if (!Array.isArray(targets) || targets.some((role) => typeof role !== 'string')) {
      throw new MappingError(`map.${source} must be a core role or a list of core roles`);
    }
    const names = (targets as string[]).map((role) => roleName(role, `map.${source}`));
    const undeclared = names.filter((role) => !roles.has(role));
    if (undeclared.length > 0) {
      throw new MappingError(`map.${source} names ${undeclared.join(', ')}, which roles does not declare`);
    }
    map.set(source, names);
  }

  const unmapped = value.unmapped ?? 'report';
  if (unmapped !== 'report' && unmapped !== 'keep') throw new MappingError('unmapped takes report or keep');

  return {
    roles,
    map,
    unmapped,
    roleClaims: stringList(value.roleClaims, 'roleClaims'),
    userEditableClaims: new Set(stringList(value.userEditableClaims, 'userEditableClaims')),
    organizations: organizationSettings(value.organizations),
  };
}

function organizationSettings(value: unknown): OrganizationSettings {
  if (value === undefined || value === null) return { ...DEFAULT_ORGANIZATIONS };
  if (!isObject(value)) throw new MappingError(`organizations must be an object with ${ORGANIZATION_KEYS.join(', ')}`);
  const unknown = Object.keys(value).filter((key) => !ORGANIZATION_KEYS.includes(key));
  if (unknown.length > 0)
    throw new MappingError(`unknown key(s) organizations.${unknown.join(', organizations.')} (known: ${ORGANIZATION_KEYS.join(', ')})`);
  const { tenantId, keepPublic = true, roles = 'scoped', firstFactors } = value;
  if (tenantId !== undefined && !['name', 'id', 'slug', 'alias'].includes(tenantId as string))
    throw new MappingError('organizations.tenantId takes name, id, slug or alias');
  if (typeof keepPublic !== 'boolean') throw new MappingError('organizations.keepPublic takes true or false');
  if (roles !== 'scoped' && roles !== 'prefixed') throw new MappingError('organizations.roles takes scoped or prefixed');
  const factors = firstFactors === undefined ? undefined : stringList(firstFactors, 'organizations.firstFactors');
  return {
    ...(tenantId !== undefined && { tenantId: tenantId as TenantIdField }),
    keepPublic,
    roles,
    ...(factors !== undefined && { firstFactors: [...new Set(factors)] }),
  };
}

/** Core roles for a user's source role and group names, and the names that map to none (reported). */
export function resolveRoles(names: readonly string[], mapping: Mapping | undefined): { roles: string[]; unmapped: string[] } {
  const roles = new Set<string>();
  const unmapped: string[] = [];
  for (const name of new Set(names)) {
    const targets = mapping?.map.get(name);
    if (targets !== undefined) targets.forEach((role) => roles.add(role));
    else if (mapping?.roles.has(name)) roles.add(name);
    else if (mapping?.unmapped === 'keep' && validRoleName(name)) roles.add(name.trim());
    else unmapped.push(name);
  }
  return { roles: [...roles], unmapped };
}

/** Role names a user's trusted claims hold under the mapping's roleClaims. */
export function rolesFromClaims(claims: Record<string, unknown> | undefined, mapping: Mapping | undefined): string[] {
  if (claims === undefined || mapping === undefined) return [];
  const names: string[] = [];
  for (const claim of mapping.roleClaims) {
    const value = claims[claim];
    if (typeof value === 'string' && value.trim() !== '') names.push(value);
    else if (value === true) names.push(claim);
    else if (Array.isArray(value)) names.push(...value.filter((item): item is string => typeof item === 'string' && item.trim() !== ''));
  }
  return names;
}

function validRoleName(name: string): boolean {
  const trimmed = name.trim();
  return trimmed !== '' && name.length <= MAX_ROLE;
}

function roleName(name: string, where: string): string {
  if (!validRoleName(name)) throw new MappingError(`${where}: a role name must be 1 to ${MAX_ROLE} characters`);
  return name.trim();
}

function stringList(value: unknown, key: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item === '')) {
    throw new MappingError(`${key} must be a list of names`);
  }
  return value as string[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
