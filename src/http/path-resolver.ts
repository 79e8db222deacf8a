// Splits a request path into the optional prefixes of the contract (§1.1) and the route path:
//   [/<base_path>] [/appid-<appId>] [/<tenantId>] /<route> [/]
// Matching is case-insensitive; an exact route match wins over reading a segment as a prefix.

export interface ResolvedPath {
  routePath: string;
  appId: string;
  tenantId: string;
  // false when the path matched no known route (the 404 catch-all answers it).
  known: boolean;
}

// Path words that are never read as a tenant segment.
const reservedWords = new Set(['recipe', 'config', 'users', 'hello']);
const idPattern = /^[a-z0-9-]+$/;

export function resolvePath(path: string, basePath: string, knownRoutes: ReadonlySet<string>): ResolvedPath {
  let lower = path.toLowerCase();
  if (basePath !== '' && (lower === basePath || lower.startsWith(`${basePath}/`))) lower = lower.slice(basePath.length);
  const segments = lower.split('/').filter((segment) => segment !== '');
  const asRoute = (parts: string[]) => `/${parts.join('/')}`;

  if (knownRoutes.has(asRoute(segments))) return { routePath: asRoute(segments), appId: 'public', tenantId: 'public', known: true };

  let rest = segments;
  let appId = 'public';
  if (rest[0]?.startsWith('appid-')) {
    appId = rest[0].slice('appid-'.length);
    rest = rest.slice(1);
    if (!idPattern.test(appId)) return unknown(lower);
    if (knownRoutes.has(asRoute(rest))) return { routePath: asRoute(rest), appId, tenantId: 'public', known: true };
  }
  const [tenantId, ...routeParts] = rest;
  if (tenantId !== undefined && idPattern.test(tenantId) && !reservedWords.has(tenantId) && knownRoutes.has(asRoute(routeParts))) {
    return { routePath: asRoute(routeParts), appId, tenantId, known: true };
  }
  return unknown(lower);
}

function unknown(path: string): ResolvedPath {
  return { routePath: path, appId: 'public', tenantId: 'public', known: false };
}
