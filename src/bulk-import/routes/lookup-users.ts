import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../http/route.js';
import { LookupUsersBody, LookupUsersResponse } from '../migration-support-schemas.js';

// Which of a batch's users the core already holds, by old id, internal id or account, in one call.
const lookupUsers: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/bulk-import/users/lookup',
    schema: { body: LookupUsersBody, response: { 200: LookupUsersResponse } },
    scope: 'app',
    handle: async ({ body }) => app.services.migrationSupport.lookupUsers(body),
  });
};

export default lookupUsers;
