import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { assertAppScope } from '../../plugins/request-pipeline.js';
import {
  CountUsersResponse, ListUsersQuery, ListUsersResponse, QueueStatusQuery, RemoveUsersBody, RemoveUsersResponse,
} from '../schemas.js';
import { parseListLimit, parseQueueStatus, parseRemoveIds } from '../queue-query.js';

// The queue routes check their input before the app scope, as the reference does (hence scope 'custom').
const queueRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/bulk-import/users', {
    config: { scope: 'custom' },
    schema: { querystring: ListUsersQuery, response: { 200: ListUsersResponse } },
    handler: async (request) => {
      const limit = parseListLimit(request.query);
      const status = parseQueueStatus(request.query.status);
      assertAppScope(request);
      return request.server.services.bulkImport.listUsers({ status, limit, paginationToken: request.query.paginationToken });
    },
  });

  app.get('/bulk-import/users/count', {
    config: { scope: 'custom' },
    schema: { querystring: QueueStatusQuery, response: { 200: CountUsersResponse } },
    handler: async (request) => {
      const status = parseQueueStatus(request.query.status);
      assertAppScope(request);
      return request.server.services.bulkImport.countUsers(status);
    },
  });

  app.post('/bulk-import/users/remove', {
    config: { scope: 'custom' },
    schema: { body: RemoveUsersBody, response: { 200: RemoveUsersResponse } },
    handler: async (request) => {
      if (request.body.ids.length === 0) return { deletedIds: [], invalidIds: [] };
      const ids = parseRemoveIds(request.body.ids);
      assertAppScope(request);
      return request.server.services.bulkImport.removeUsers(ids);
    },
  });
};

export default queueRoutes;
