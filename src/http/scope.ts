import type { FastifyRequest } from 'fastify';
import { coreError } from '../errors.js';
import { cdiAtLeast, type CdiVersion } from './cdi-version.js';

// Contract §1.2: a tenant-scoped route needs an existing app and tenant (only `public` exists); an app-scoped one an existing
// app, and from cdi 5.0 no tenant segment; 'any' checks neither (/hello).
export type Scope = 'tenant' | 'app' | 'any';

type ScopedRequest = Pick<FastifyRequest, 'appId' | 'tenantId'> & { cdiVersion: CdiVersion };

export function assertTenantScope(request: ScopedRequest): void {
  if (request.appId !== 'public' || request.tenantId !== 'public') throw coreError('TENANT_NOT_FOUND', request.appId, request.tenantId);
}

export function assertAppScope(request: ScopedRequest): void {
  if (request.appId !== 'public') throw coreError('TENANT_NOT_FOUND', request.appId, request.tenantId);
  if (request.tenantId !== 'public' && cdiAtLeast(request.cdiVersion, '5.0')) throw coreError('APP_SPECIFIC_API');
}

export function assertScope(request: ScopedRequest, scope: Scope): void {
  if (scope === 'tenant') assertTenantScope(request);
  else if (scope === 'app') assertAppScope(request);
}
