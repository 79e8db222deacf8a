import type { FastifyPluginAsync } from 'fastify';
import { coreError } from '../../../errors.js';
import { defineRoute } from '../../../http/route.js';
import { coreConfigFields } from '../core-config.js';
import { CoreConfigResponse, SearchTagsResponse, TextError } from '../schemas.js';

// D6 and D7: what the dashboard's user search and tenant page read from the core (D7 for any existing tenant, with
// its own overrides). `GET /telemetry` (D8) is not
// served on purpose: any answer to it makes the SDK post the admin's email to its vendor (docs/dashboard.md).
const tenantInfoRoutes: FastifyPluginAsync = async (app) => {
  // The query parameters GET /users searches by.
  defineRoute(app, {
    method: 'GET',
    url: '/user/search/tags',
    schema: { response: { 200: SearchTagsResponse } },
    scope: 'any',
    handle: async () => ({ status: 'OK' as const, tags: ['email', 'phone', 'provider'] }),
  });

  defineRoute(app, {
    method: 'GET',
    url: '/recipe/dashboard/tenant/core-config',
    schema: { response: { 200: CoreConfigResponse, 400: TextError } },
    scope: 'any',
    handle: async (_input, request) => {
      const tenant = request.appId === 'public' ? await app.services.multitenancy.getTenant(request.tenantId) : undefined;
      if (!tenant) throw coreError('TENANT_NOT_FOUND', request.appId, request.tenantId);
      return { status: 'OK' as const, config: coreConfigFields(app.services.config, tenant.coreConfig) };
    },
  });
};

export default tenantInfoRoutes;
