import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { toUserObject } from '../../../users/user-object.js';
import { UserListResponse, UsersByEmailQuery } from '../schemas.js';

// Deprecated: third-party users having exactly this email, oldest first.
const usersByEmail: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/recipe/users/by-email', {
    config: { scope: 'tenant' },
    schema: { querystring: UsersByEmailQuery, response: { 200: UserListResponse } },
    handler: async (request) => {
      const result = await app.services.thirdParty.listUsersByEmail(request.tenantId, request.query.email);
      return { status: result.status, users: result.users.map((user) => toUserObject(user, request.cdiVersion)) };
    },
  });
};

export default usersByEmail;
