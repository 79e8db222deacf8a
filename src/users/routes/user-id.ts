import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../http/route.js';
import { GetUserByIdQuery, GetUserByIdResponse } from '../schemas.js';
import { atLeastCdi4 } from './user-shape.js';
import { toUserObject } from '../user-object.js';

// Any recipe, either id.
const userById: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'GET',
    url: '/user/id',
    schema: { querystring: GetUserByIdQuery, response: { 200: GetUserByIdResponse } },
    scope: 'app',
    handle: async ({ query, cdiVersion }) => {
      const result = await app.services.users.findUser(query.userId);
      return result.status === 'OK' ? { status: result.status, user: toUserObject(result.user, atLeastCdi4(cdiVersion)) } : result;
    },
  });
};

export default userById;
