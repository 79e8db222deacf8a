import crypto from 'node:crypto';
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config/config.js';
import { coreError } from '../errors.js';
import type { ResolvedPath } from '../http/path-resolver.js';
import { cdiAtLeast, compareCdiVersions, isSupportedCdiVersion, parseCdiVersion, type CdiVersion } from '../http/cdi-version.js';
import { routeMarker } from '../http/route.js';

export { assertAppScope, assertTenantScope } from '../http/route.js';

declare module 'fastify' {
  interface FastifyRequest {
    appId: string;
    tenantId: string;
    cdiVersion: CdiVersion;
  }
}

// The only paths whose pipeline checks differ from every other route's (contract §1.4, §1.5, §4.2).
interface PathExemption {
  /** Answered without an API key. */
  apiKey: boolean;
  /** Any well-formed cdi-version up to the maximum is accepted, not only the supported set. */
  cdiVersionMembership: boolean;
  /** A non-public app or tenant in the path is answered 404 (only `/`: there it can only be a tenant that does not exist). */
  publicTenantOnly: boolean;
}

const EXEMPTIONS: Readonly<Record<string, PathExemption>> = {
  '/': { apiKey: true, cdiVersionMembership: true, publicTenantOnly: true },
  '/hello': { apiKey: true, cdiVersionMembership: true, publicTenantOnly: false },
  '/apiversion': { apiKey: false, cdiVersionMembership: true, publicTenantOnly: false },
  // The SDK's JWKS client (jose) sends neither an api key nor a cdi-version (S-0, S-3.2).
  '/.well-known/jwks.json': { apiKey: true, cdiVersionMembership: true, publicTenantOnly: false },
};

const NONE: PathExemption = { apiKey: false, cdiVersionMembership: false, publicTenantOnly: false };

export function exemptionFor(routePath: string | undefined): PathExemption {
  return (routePath !== undefined && EXEMPTIONS[routePath]) || NONE;
}

export const resolvedPathKey = Symbol('resolvedPath');
type RawWithPath = { [resolvedPathKey]?: ResolvedPath };

export function resolvedPathOf(request: FastifyRequest): ResolvedPath | undefined {
  return (request.raw as RawWithPath)[resolvedPathKey];
}

function digest(value: string): Buffer {
  return crypto.createHash('sha256').update(value).digest();
}

// The configured keys' digests, computed once for the list the config holds rather than on every request.
const keyDigests = new WeakMap<readonly string[], readonly Buffer[]>();

function digestsOf(keys: readonly string[]): readonly Buffer[] {
  let digests = keyDigests.get(keys);
  if (digests === undefined) keyDigests.set(keys, (digests = keys.map(digest)));
  return digests;
}

// The checks every known route runs before its handler, in the reference's order (contract §1.6):
// IP filter, API key, cdi-version format/max/min, old versions with a tenant, cdi-version membership.
// The app/tenant check comes later, in each route (src/http/route.ts), after its input checks.
export function runPipelineChecks(request: FastifyRequest, config: Config): void {
  const resolved = resolvedPathOf(request);
  request.appId = resolved?.appId ?? 'public';
  request.tenantId = resolved?.tenantId ?? 'public';
  const exemption = exemptionFor(resolved?.routePath);

  const ip = request.ip;
  if ((config.ip_allow_regex && !config.ip_allow_regex.test(ip)) || config.ip_deny_regex?.test(ip)) throw coreError('IP_NOT_ALLOWED');

  if (!exemption.apiKey && config.api_keys) {
    const given = apiKeyOf(request);
    const givenDigest = digest(given ?? '');
    // Compare every key, digest against digest, so timing says nothing about which key or how much matched.
    const matches = digestsOf(config.api_keys).reduce((found, key) => crypto.timingSafeEqual(key, givenDigest) || found, false);
    if (given === undefined || !matches) throw coreError('INVALID_API_KEY');
  }

  const header = request.headers['cdi-version'];
  const text = Array.isArray(header) ? header[0] : header;
  let version = config.max_cdi_version;
  if (text !== undefined) {
    const parsed = parseCdiVersion(text);
    if (!parsed) throw coreError('CDI_VERSION_INVALID');
    if (compareCdiVersions(parsed, config.max_cdi_version) > 0) throw coreError('CDI_VERSION_NOT_SUPPORTED', text);
    if (config.min_cdi_version && compareCdiVersions(parsed, config.min_cdi_version) < 0) {
      throw coreError('CDI_VERSION_TOO_LOW', text, config.min_cdi_version.text);
    }
    version = parsed;
  }
  request.cdiVersion = version;
  if (!cdiAtLeast(version, '3.0') && request.tenantId !== 'public') throw coreError('NOT_FOUND');
  if (!exemption.cdiVersionMembership && !isSupportedCdiVersion(version)) throw coreError('CDI_VERSION_NOT_SUPPORTED', version.text);
}

function apiKeyOf(request: FastifyRequest): string | undefined {
  const header = request.headers['api-key'];
  const apiKey = Array.isArray(header) ? header[0] : header;
  if (apiKey !== undefined) return apiKey.trim();
  const authorization = request.headers.authorization;
  if (authorization === undefined) return undefined;
  const trimmed = authorization.trim();
  return /^bearer /i.test(trimmed) ? trimmed.slice('bearer '.length).trim() : trimmed;
}

export default fp(
  async (app, { config }: { config: Config }) => {
    app.decorateRequest('appId', 'public');
    app.decorateRequest('tenantId', 'public');
    app.decorateRequest('cdiVersion', null as unknown as CdiVersion);
    app.addHook('onRequest', async (request: FastifyRequest) => {
      // Unknown paths and methods are answered by the not-found handler, which runs these checks itself.
      if (request.is404) return;
      runPipelineChecks(request, config);
      const { appId, tenantId } = request;
      const publicOnly = exemptionFor(request.routeOptions.url).publicTenantOnly;
      if (publicOnly && (appId !== 'public' || tenantId !== 'public')) throw coreError('NOT_FOUND');
    });
    // A route declared any other way would skip its app/tenant check.
    app.addHook('onRoute', (route) => {
      if (route.config?.[routeMarker] !== true) throw new Error(`${String(route.method)} ${route.url} must be declared with defineRoute`);
    });
  },
  { name: 'request-pipeline' },
);
