import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { LookupUsersBody, LookupUsersResponse } from '../../schemas/migration-support.js';

// Which of a batch's users the core already holds, by old id, internal id or account, in one call.
const lookupUsers: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/bulk-import/users/lookup', {
    config: { scope: 'app' },
    schema: { body: LookupUsersBody, response: { 200: LookupUsersResponse } },
    handler: async (request) => app.services.migrationSupport.lookupUsers(request.body),
  });
};

export default lookupUsers;
