import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { cdiAtLeast } from '../../http/cdi-version.js';
import { integerQuery } from '../../http/query.js';
import { assertTenantScope } from '../../plugins/request-pipeline.js';
import { toUserObject } from '../user-object.js';
import { UsersPageQuery, UsersPageResponse } from '../schemas.js';
import { parseIncludeRecipeIds } from './recipe-ids.js';

// GET /users: keyset pagination newest or oldest first (contract §8.4).
const usersPage: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/users', {
    config: { scope: 'custom' },
    schema: { querystring: UsersPageQuery, response: { 200: UsersPageResponse } },
    handler: async (request) => {
      const { query, cdiVersion } = request;
      // The reference's order: recipe ids, tenant, then the paging parameters.
      const recipeIds = parseIncludeRecipeIds(query.includeRecipeIds);
      assertTenantScope(request);
      const result = await app.services.users.listUsers({
        tenantId: request.tenantId,
        limit: integerQuery(query, 'limit'),
        timeJoinedOrder: query.timeJoinedOrder,
        paginationToken: query.paginationToken,
        recipeIds,
        search: { email: query.email, phone: query.phone, provider: query.provider },
      });
      const wrap = !cdiAtLeast(cdiVersion, '4.0');
      return {
        status: result.status,
        users: result.users.map((user) => (wrap ? { recipeId: user.recipe_id, user: toUserObject(user, cdiVersion) } : toUserObject(user, cdiVersion))),
        ...(result.nextPaginationToken !== undefined && { nextPaginationToken: result.nextPaginationToken }),
      };
    },
  });
};

export default usersPage;
