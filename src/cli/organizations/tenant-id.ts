/** The longest tenant id the core stores (contract-multitenancy T-2). */
export const MAX_TENANT_ID = 64;

// The core refuses these ids (words of its paths, ids that would shadow a served route) and `public` is the tenant
// every user already has: an organization named so gets the `-org` suffix instead.
const RESERVED = new Set(['public', 'recipe', 'config', 'users', 'hello', 'bulk-import', 'lazy-migration', 'session-bridge', 'metrics']);

/**
 * A tenant id made from an organization's id, name, slug or alias (contract-multitenancy T-5): lower-cased, each run
 * of characters outside `[a-z0-9]` one `-`, no `-` at either end, at most 64 characters; a reserved result, or one
 * starting `appid-` (which names an app in a path), gets `-org`, resp. `org-` before it. Undefined when nothing is left (a name of symbols only).
 */
export function tenantIdFrom(sourceId: string): string | undefined {
  const trimEnds = (text: string) => text.replace(/^-+|-+$/g, '');
  let id = trimEnds(sourceId.toLowerCase().replace(/[^a-z0-9]+/g, '-')).slice(0, MAX_TENANT_ID);
  id = trimEnds(id);
  if (id === '') return undefined;
  if (RESERVED.has(id)) id = `${id}-org`;
  else if (id.startsWith('appid-')) id = trimEnds(`org-${id}`.slice(0, MAX_TENANT_ID));
  return id;
}
