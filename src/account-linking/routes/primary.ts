import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../http/route.js';

import { toUserObject } from '../../users/user-object.js';
import { atLeastCdi4 } from '../../users/routes/user-shape.js';
import { CanCreatePrimaryResponse, CreatePrimaryResponse, RecipeUserIdBody, RecipeUserIdQuery } from '../schemas.js';

// AL-5 and AL-6: can a login method become a primary user, and make it one.
const primary: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'GET',
    url: '/recipe/accountlinking/user/primary/check',
    schema: { querystring: RecipeUserIdQuery, response: { 200: CanCreatePrimaryResponse } },
    scope: 'app',
    handle: async ({ query }) => app.services.accountLinking.canCreatePrimaryUser(query.recipeUserId),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/accountlinking/user/primary',
    schema: { body: RecipeUserIdBody, response: { 200: CreatePrimaryResponse } },
    scope: 'app',
    handle: async ({ body, cdiVersion }) => {
      const result = await app.services.accountLinking.createPrimaryUser(body.recipeUserId);
      return result.status === 'OK' ? { ...result, user: toUserObject(result.user, atLeastCdi4(cdiVersion)) } : result;
    },
  });
};

export default primary;
