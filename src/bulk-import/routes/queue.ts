import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../http/route.js';
import {
  CountUsersResponse,
  ListUsersQuery,
  ListUsersResponse,
  QueueStatusQuery,
  RemoveUsersBody,
  RemoveUsersResponse,
} from '../schemas.js';
import { parseListLimit, parseQueueStatus, parseRemoveIds } from '../queue-query.js';

// The queue routes check their input before the app scope, as the reference does.
const queueRoutes: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'GET',
    url: '/bulk-import/users',
    schema: { querystring: ListUsersQuery, response: { 200: ListUsersResponse } },
    parse: ({ query }) => ({
      limit: parseListLimit(query),
      status: parseQueueStatus(query.status),
      paginationToken: query.paginationToken,
    }),
    scope: 'app',
    handle: async (listing) => app.services.bulkImport.listUsers(listing),
  });

  defineRoute(app, {
    method: 'GET',
    url: '/bulk-import/users/count',
    schema: { querystring: QueueStatusQuery, response: { 200: CountUsersResponse } },
    parse: ({ query }) => parseQueueStatus(query.status),
    scope: 'app',
    handle: async (status) => app.services.bulkImport.countUsers(status),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/bulk-import/users/remove',
    schema: { body: RemoveUsersBody, response: { 200: RemoveUsersResponse } },
    parse: ({ body }) => (body.ids.length === 0 ? [] : parseRemoveIds(body.ids)),
    // An empty list is answered before any check, as the reference does.
    scope: (ids) => (ids.length === 0 ? 'any' : 'app'),
    handle: async (ids) => (ids.length === 0 ? { deletedIds: [], invalidIds: [] } : app.services.bulkImport.removeUsers(ids)),
  });
};

export default queueRoutes;
