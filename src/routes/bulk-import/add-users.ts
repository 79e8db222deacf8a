import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { assertAppScope } from '../../plugins/request-pipeline.js';
import { AddUsersBody, AddUsersErrors, AddUsersQuery, AddUsersResponse } from '../../schemas/bulk-import.js';
import { assertBatchSize } from '../../bulk-import/enqueue.js';
import { parseDryRun } from '../../bulk-import/queue-query.js';
import type { JsonObject } from '../../bulk-import/fields.js';

const addUsers: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/bulk-import/users', {
    // 10,000 users with hashes are several megabytes, past the default body limit.
    bodyLimit: app.services.config.bulk_import_body_limit_bytes,
    config: { scope: 'custom' },
    schema: { body: AddUsersBody, querystring: AddUsersQuery, response: { 200: AddUsersResponse, 400: AddUsersErrors } },
    handler: async (request) => {
      const dryRun = parseDryRun(request.query.dryRun);
      const { users } = request.body;
      // The reference answers these two before it checks the app and tenant.
      if (users.length === 0) return { status: 'OK' as const };
      assertBatchSize(users.length);
      assertAppScope(request);
      return request.server.services.bulkImport.addUsers(users as JsonObject[], { dryRun });
    },
  });
};

export default addUsers;
