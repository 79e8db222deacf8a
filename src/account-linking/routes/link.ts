import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../http/route.js';

import { toUserObject } from '../../users/user-object.js';
import { atLeastCdi4 } from '../../users/routes/user-shape.js';
import { CanLinkResponse, LinkBody, LinkQuery, LinkResponse } from '../schemas.js';

// AL-7 and AL-8: can a login method join a primary user, and link it.
const link: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'GET',
    url: '/recipe/accountlinking/user/link/check',
    schema: { querystring: LinkQuery, response: { 200: CanLinkResponse } },
    scope: 'app',
    handle: async ({ query }) => app.services.accountLinking.canLinkAccounts(query.recipeUserId, query.primaryUserId),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/accountlinking/user/link',
    schema: { body: LinkBody, response: { 200: LinkResponse } },
    scope: 'app',
    handle: async ({ body, cdiVersion }) => {
      const result = await app.services.accountLinking.linkAccounts(body.recipeUserId, body.primaryUserId);
      return 'user' in result ? { ...result, user: toUserObject(result.user, atLeastCdi4(cdiVersion)) } : result;
    },
  });
};

export default link;
