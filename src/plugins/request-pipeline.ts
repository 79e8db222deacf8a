import crypto from 'node:crypto';
import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.js';
import { coreError } from '../errors.js';
import type { ResolvedPath } from '../http/path-resolver.js';
import { cdiAtLeast, compareCdiVersions, isSupportedCdiVersion, parseCdiVersion, type CdiVersion } from '../http/cdi-version.js';

// 'open': /hello and / (no API key, any well-formed cdi-version); 'app' and 'tenant' as in contract §1.2;
// 'custom': the handler decides between app and tenant scope (it calls assertAppScope / assertTenantScope).
export type RouteScope = 'open' | 'app' | 'tenant' | 'custom';

declare module 'fastify' {
  interface FastifyContextConfig {
    scope?: RouteScope;
  }
  interface FastifyRequest {
    appId: string;
    tenantId: string;
    cdiVersion: CdiVersion;
  }
}

export const resolvedPathKey = Symbol('resolvedPath');
type RawWithPath = { [resolvedPathKey]?: ResolvedPath };

export function resolvedPathOf(request: FastifyRequest): ResolvedPath | undefined {
  return (request.raw as RawWithPath)[resolvedPathKey];
}

function digest(value: string): Buffer {
  return crypto.createHash('sha256').update(value).digest();
}

// The checks every known route runs before its handler, in the reference's order (contract §1.6):
// IP filter, API key, cdi-version format/max/min, old versions with a tenant, cdi-version membership.
export function runPipelineChecks(request: FastifyRequest, config: Config, scope: RouteScope): void {
  const resolved = resolvedPathOf(request);
  request.appId = resolved?.appId ?? 'public';
  request.tenantId = resolved?.tenantId ?? 'public';

  const ip = request.ip;
  if ((config.ip_allow_regex && !config.ip_allow_regex.test(ip)) || config.ip_deny_regex?.test(ip)) throw coreError('IP_NOT_ALLOWED');

  if (scope !== 'open' && config.api_keys) {
    const given = apiKeyOf(request);
    const givenDigest = digest(given ?? '');
    // Compare every key, digest against digest, so timing says nothing about which key or how much matched.
    const matches = config.api_keys.reduce((found, key) => crypto.timingSafeEqual(digest(key), givenDigest) || found, false);
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
  const versionExempt = scope === 'open' || resolved?.routePath === '/apiversion';
  if (!versionExempt && !isSupportedCdiVersion(version)) throw coreError('CDI_VERSION_NOT_SUPPORTED', version.text);
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

export function assertTenantScope(request: FastifyRequest): void {
  if (request.appId !== 'public' || request.tenantId !== 'public') throw coreError('TENANT_NOT_FOUND', request.appId, request.tenantId);
}

export function assertAppScope(request: FastifyRequest): void {
  if (request.appId !== 'public') throw coreError('TENANT_NOT_FOUND', request.appId, request.tenantId);
  if (request.tenantId !== 'public' && cdiAtLeast(request.cdiVersion, '5.0')) throw coreError('APP_SPECIFIC_API');
}

function assertScope(request: FastifyRequest, scope: RouteScope): void {
  if (scope === 'tenant') assertTenantScope(request);
  else if (scope === 'app') assertAppScope(request);
  else if (scope === 'open' && resolvedPathOf(request)?.routePath === '/' && (request.appId !== 'public' || request.tenantId !== 'public')) {
    throw coreError('NOT_FOUND');
  }
}

export default fp(
  async (app, { config }: { config: Config }) => {
    app.decorateRequest('appId', 'public');
    app.decorateRequest('tenantId', 'public');
    app.decorateRequest('cdiVersion', null as unknown as CdiVersion);
    app.addHook('onRequest', async (request: FastifyRequest) => {
      // Unknown paths and methods are answered by the not-found handler, which runs these checks itself.
      if (request.is404) return;
      runPipelineChecks(request, config, request.routeOptions.config.scope ?? 'tenant');
    });
    // After body/query validation: the contract checks app and tenant existence once the input is parsed.
    app.addHook('preHandler', async (request: FastifyRequest, _reply: FastifyReply) => {
      if (request.is404) return;
      assertScope(request, request.routeOptions.config.scope ?? 'tenant');
    });
  },
  { name: 'request-pipeline' },
);
