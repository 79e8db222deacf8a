import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../http/route.js';
import { RemoveUserBody, RemoveUserResponse } from '../schemas.js';

// Either id of any login method of the user, or its (retained) group id; an unknown id is not an error (AL-10.8).
const removeUser: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/user/remove',
    schema: { body: RemoveUserBody, response: { 200: RemoveUserResponse } },
    scope: 'app',
    handle: async ({ body }) => app.services.users.removeUser(body.userId, body.removeAllLinkedAccounts ?? true),
  });
};

export default removeUser;
