import type { FastifyPluginAsync } from 'fastify';
import { cdiAtLeast } from '../../http/cdi-version.js';
import { integerQuery } from '../../http/query.js';
import { defineRoute } from '../../http/route.js';
import { legacyRecipeIdOf, toUserObject } from '../user-object.js';
import { UsersPageQuery, UsersPageResponse } from '../schemas.js';
import { parseIncludeRecipeIds } from './recipe-ids.js';

// GET /users: keyset pagination newest or oldest first (contract §8.4).
const usersPage: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'GET',
    url: '/users',
    schema: { querystring: UsersPageQuery, response: { 200: UsersPageResponse } },
    // The reference's order: recipe ids, tenant, then the paging parameters.
    parse: ({ query }) => parseIncludeRecipeIds(query.includeRecipeIds),
    scope: 'tenant',
    handle: async (recipeIds, { query, tenantId, cdiVersion }) => {
      const result = await app.services.users.listUsers({
        tenantId,
        limit: integerQuery(query, 'limit'),
        timeJoinedOrder: query.timeJoinedOrder,
        paginationToken: query.paginationToken,
        recipeIds,
        search: { email: query.email, phone: query.phone, provider: query.provider },
      });
      const wrap = !cdiAtLeast(cdiVersion, '4.0');
      return {
        status: result.status,
        users: result.users.map((user) =>
          wrap ? { recipeId: legacyRecipeIdOf(user), user: toUserObject(user, cdiVersion) } : toUserObject(user, cdiVersion),
        ),
        ...(result.nextPaginationToken !== undefined && { nextPaginationToken: result.nextPaginationToken }),
      };
    },
  });
};

export default usersPage;
