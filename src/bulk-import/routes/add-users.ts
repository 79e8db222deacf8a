import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../http/route.js';
import { AddUsersBody, AddUsersErrors, AddUsersQuery, AddUsersResponse } from '../schemas.js';
import { assertBatchSize } from '../enqueue.js';
import { parseDryRun, parseImportNow } from '../queue-query.js';
import type { JsonObject } from '../fields.js';
import { countWeakHashes } from '../weak-hashes.js';
import { parseRoleDefinitions } from '../role-definitions.js';

const addUsers: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/bulk-import/users',
    // 10,000 users with hashes are several megabytes, past the default body limit.
    bodyLimit: app.services.config.bulk_import_body_limit_bytes,
    schema: { body: AddUsersBody, querystring: AddUsersQuery, response: { 200: AddUsersResponse, 400: AddUsersErrors } },
    // The reference answers an empty or oversized batch before it checks the app and tenant.
    parse: ({ query, body }) => {
      const dryRun = parseDryRun(query.dryRun);
      const importNow = parseImportNow(query.importNow);
      if (body.users.length > 0) assertBatchSize(body.users.length);
      const roleDefinitions = parseRoleDefinitions((body as { roleDefinitions?: unknown }).roleDefinitions);
      return { users: body.users as JsonObject[], dryRun, importNow, roleDefinitions };
    },
    scope: ({ users }) => (users.length === 0 ? 'any' : 'app'),
    handle: async ({ users, dryRun, importNow, roleDefinitions }, _request, reply) => {
      if (users.length === 0) return { status: 'OK' as const };
      const answer = await app.services.bulkImport.addUsers(users, { dryRun, importNow, roleDefinitions });
      const weakHashes = countWeakHashes(users, reply.log);
      return weakHashes > 0 ? { ...answer, weakHashes } : answer;
    },
  });
};

export default addUsers;
