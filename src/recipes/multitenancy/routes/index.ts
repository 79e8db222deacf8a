import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../../http/route.js';
import { LegacyTenantResponse, TenantListResponse, TenantV2Response } from '../schemas.js';

const isPublic = (request: { appId: string; tenantId: string }) => request.appId === 'public' && request.tenantId === 'public';

// S-7: the one tenant, in the shape that leaves the app's own login methods and providers in force: no
// firstFactors (the SDK then uses its recipe list) and no core providers (a non-empty list would replace the app's).
// Any other tenant is the SDK's "tenant not found" (200, not the usual 400). Writes stay unserved.
const tenantRoutes: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'GET',
    url: '/recipe/multitenancy/tenant/v2',
    schema: { response: { 200: TenantV2Response } },
    scope: 'any',
    handle: async (_input, request) =>
      isPublic(request)
        ? { tenantId: 'public', thirdParty: { providers: [] }, coreConfig: {}, status: 'OK' as const }
        : { status: 'TENANT_NOT_FOUND_ERROR' as const },
  });

  // Deprecated (cdi 5.0 shape), for tools that still read it.
  defineRoute(app, {
    method: 'GET',
    url: '/recipe/multitenancy/tenant',
    schema: { response: { 200: LegacyTenantResponse } },
    scope: 'any',
    handle: async (_input, request) =>
      isPublic(request)
        ? {
            tenantId: 'public',
            emailPassword: { enabled: true },
            thirdParty: { enabled: true, providers: [] },
            passwordless: { enabled: true },
            coreConfig: {},
            status: 'OK' as const,
          }
        : { status: 'TENANT_NOT_FOUND_ERROR' as const },
  });

  defineRoute(app, {
    method: 'GET',
    url: '/recipe/multitenancy/tenant/list/v2',
    schema: { response: { 200: TenantListResponse } },
    scope: 'app',
    handle: async () => ({ status: 'OK' as const, tenants: [{ tenantId: 'public', thirdParty: { providers: [] }, coreConfig: {} }] }),
  });
};

export default tenantRoutes;
