import type { FastifyPluginAsync } from 'fastify';
import { cdiAtLeast } from '../../http/cdi-version.js';
import { defineRoute } from '../../http/route.js';
import { UsersCountQuery, UsersCountResponse } from '../schemas.js';
import { parseIncludeRecipeIds } from './recipe-ids.js';

// Tenant-scoped, or app-wide with includeAllTenants=true (any case).
const usersCount: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'GET',
    url: '/users/count',
    schema: { querystring: UsersCountQuery, response: { 200: UsersCountResponse } },
    parse: ({ query }) => ({
      recipeIds: parseIncludeRecipeIds(query.includeRecipeIds),
      allTenants: query.includeAllTenants?.toLowerCase() === 'true',
    }),
    scope: ({ allTenants }) => (allTenants ? 'app' : 'tenant'),
    handle: async ({ recipeIds, allTenants }, { query, tenantId, cdiVersion }) =>
      app.services.users.countUsers({
        tenantId: allTenants ? undefined : tenantId,
        recipeIds,
        approximate: cdiAtLeast(cdiVersion, '5.6') && query.allowApproximate?.toLowerCase() === 'true',
      }),
  });
};

export default usersCount;
