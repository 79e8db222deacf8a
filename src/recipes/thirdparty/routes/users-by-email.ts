import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../../http/route.js';
import { toUserObject } from '../../../users/user-object.js';
import { UserListResponse, UsersByEmailQuery } from '../schemas.js';

// Deprecated: third-party users having exactly this email, oldest first.
const usersByEmail: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'GET',
    url: '/recipe/users/by-email',
    schema: { querystring: UsersByEmailQuery, response: { 200: UserListResponse } },
    scope: 'tenant',
    handle: async ({ query, tenantId, cdiVersion }) => {
      const result = await app.services.thirdParty.listUsersByEmail(tenantId, query.email);
      return { status: result.status, users: result.users.map((user) => toUserObject(user, cdiVersion)) };
    },
  });
};

export default usersByEmail;
