import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { RemoveUserBody, RemoveUserResponse } from '../schemas.js';

// Either id; an unknown id is not an error. removeAllLinkedAccounts is moot without account linking.
const removeUser: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/user/remove', {
    config: { scope: 'app' },
    schema: { body: RemoveUserBody, response: { 200: RemoveUserResponse } },
    handler: async (request) => app.services.users.removeUser(request.body.userId),
  });
};

export default removeUser;
