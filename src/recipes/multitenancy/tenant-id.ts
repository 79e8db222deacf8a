import { coreError } from '../../errors.js';

export const PUBLIC_TENANT = 'public';
export const MAX_TENANT_ID_LENGTH = 64;

// Path words the path resolver never reads as a tenant (src/http/path-resolver.ts), and first segments of routes
// whose rest is itself a route: a tenant named so would be shadowed by, or shadow, a served path.
const reservedIds = new Set(['recipe', 'config', 'users', 'hello', 'bulk-import', 'lazy-migration', 'session-bridge', 'metrics']);

/**
 * A tenant id as it is stored: trimmed, lower-cased, `[a-z0-9-]`, at most 64 characters, not a reserved word and not
 * `appid-…` (contract-multitenancy T-2). `knownRoutes` is the app's route table: an id `x` for which
 * `/x/<route>` is itself a served route would make that route unreachable in the tenant.
 */
export function normaliseTenantId(raw: string, knownRoutes: ReadonlySet<string>): string {
  const id = raw.trim().toLowerCase();
  if (id === '') throw coreError('TENANT_ID_EMPTY');
  if (reservedIds.has(id) || shadowsRoute(id, knownRoutes)) throw coreError('TENANT_ID_RESERVED', id);
  if (id.startsWith('appid-')) throw coreError('TENANT_ID_APPID_PREFIX');
  if (!/^[a-z0-9-]+$/.test(id)) throw coreError('TENANT_ID_CHARACTERS');
  if (id.length > MAX_TENANT_ID_LENGTH) throw coreError('FIELD_TOO_LONG', 'tenantId', MAX_TENANT_ID_LENGTH);
  return id;
}

function shadowsRoute(id: string, knownRoutes: ReadonlySet<string>): boolean {
  const prefix = `/${id}/`;
  for (const route of knownRoutes) {
    if (route.startsWith(prefix) && knownRoutes.has(route.slice(prefix.length - 1))) return true;
  }
  return false;
}
