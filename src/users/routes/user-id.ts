import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { GetUserByIdQuery, GetUserByIdResponse } from '../schemas.js';
import { atLeastCdi4 } from './user-shape.js';
import { toUserObject } from '../user-object.js';

// Any recipe, either id.
const userById: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/user/id', {
    config: { scope: 'app' },
    schema: { querystring: GetUserByIdQuery, response: { 200: GetUserByIdResponse } },
    handler: async (request) => {
      const result = await app.services.users.findUser(request.query.userId);
      return result.status === 'OK' ? { status: result.status, user: toUserObject(result.user, atLeastCdi4(request.cdiVersion)) } : result;
    },
  });
};

export default userById;
