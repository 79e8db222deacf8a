import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { cdiAtLeast } from '../../http/cdi-version.js';
import { assertAppScope, assertTenantScope } from '../../plugins/request-pipeline.js';
import { UsersCountQuery, UsersCountResponse } from '../schemas.js';
import { parseIncludeRecipeIds } from './recipe-ids.js';

// Tenant-scoped, or app-wide with includeAllTenants=true (any case).
const usersCount: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/users/count', {
    config: { scope: 'custom' },
    schema: { querystring: UsersCountQuery, response: { 200: UsersCountResponse } },
    handler: async (request) => {
      const recipeIds = parseIncludeRecipeIds(request.query.includeRecipeIds);
      const allTenants = request.query.includeAllTenants?.toLowerCase() === 'true';
      if (allTenants) assertAppScope(request);
      else assertTenantScope(request);
      return app.services.users.countUsers({
        tenantId: allTenants ? undefined : request.tenantId,
        recipeIds,
        approximate: cdiAtLeast(request.cdiVersion, '5.6') && request.query.allowApproximate?.toLowerCase() === 'true',
      });
    },
  });
};

export default usersCount;
