import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../http/route.js';
import { AddUsersErrors } from '../schemas.js';
import { CompleteUsersBody, CompleteUsersResponse } from '../complete/schemas.js';
import { assertBatchSize } from '../enqueue.js';
import type { JsonObject } from '../fields.js';

// Users an earlier import created, completed with what a later export carries: one answer per user, in order.
const completeUsers: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/bulk-import/users/complete',
    bodyLimit: app.services.config.bulk_import_body_limit_bytes,
    schema: { body: CompleteUsersBody, response: { 200: CompleteUsersResponse, 400: AddUsersErrors } },
    parse: ({ body }) => {
      assertBatchSize(body.users.length);
      return { users: body.users as JsonObject[] };
    },
    scope: 'app',
    handle: async ({ users }) => app.services.userCompletion.completeUsers(users),
  });
};

export default completeUsers;
