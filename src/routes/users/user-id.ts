import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { GetUserByIdQuery, GetUserByIdResponse } from '../../schemas/users.js';
import { atLeastCdi4, wireUser } from './user-shape.js';

// Any recipe, either id.
const userById: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/user/id', {
    config: { scope: 'app' },
    schema: { querystring: GetUserByIdQuery, response: { 200: GetUserByIdResponse } },
    handler: async (request) => {
      const result = await app.services.users.findUser(request.query.userId);
      return result.status === 'OK' ? { status: result.status, user: wireUser(result.user, atLeastCdi4(request.cdiVersion)) } : result;
    },
  });
};

export default userById;
