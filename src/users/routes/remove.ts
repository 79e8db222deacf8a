import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../http/route.js';
import { RemoveUserBody, RemoveUserResponse } from '../schemas.js';

// Either id; an unknown id is not an error. removeAllLinkedAccounts is moot without account linking.
const removeUser: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/user/remove',
    schema: { body: RemoveUserBody, response: { 200: RemoveUserResponse } },
    scope: 'app',
    handle: async ({ body }) => app.services.users.removeUser(body.userId),
  });
};

export default removeUser;
