import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../http/route.js';

import { RecipeUserIdBody, UnlinkResponse } from '../schemas.js';

// AL-9: a login method leaves its primary user (its primary login method is deleted when others remain).
const unlink: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/recipe/accountlinking/user/unlink',
    schema: { body: RecipeUserIdBody, response: { 200: UnlinkResponse } },
    scope: 'app',
    handle: async ({ body }) => app.services.accountLinking.unlinkAccount(body.recipeUserId),
  });
};

export default unlink;
