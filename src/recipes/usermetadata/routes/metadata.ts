import type { FastifyPluginAsync } from 'fastify';
import { coreError } from '../../../errors.js';
import { defineRoute } from '../../../http/route.js';
import { requiredQuery } from '../../../http/query.js';
import { OkStatus } from '../../../http/schemas.js';
import { OptionalQuery } from '../../../http/schemas.js';
import { BulkMetadataBody, BulkMetadataResponse, MetadataResponse, TextError, UpdateMetadataBody, UserIdBody } from '../schemas.js';

const MAX_BULK_USERS = 500;

// Contract M-3: every route is app-wide and takes the user id as an opaque key.
const metadataRoutes: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'GET',
    url: '/recipe/user/metadata',
    schema: { querystring: OptionalQuery('userId'), response: { 200: MetadataResponse, 400: TextError } },
    parse: ({ query }) => requiredQuery(query, 'userId'),
    scope: 'app',
    handle: async (userId) => ({ metadata: await app.services.userMetadata.get(userId), status: 'OK' as const }),
  });

  defineRoute(app, {
    method: 'PUT',
    url: '/recipe/user/metadata',
    schema: { body: UpdateMetadataBody, response: { 200: MetadataResponse, 400: TextError } },
    scope: 'app',
    handle: async ({ body }) => ({
      metadata: await app.services.userMetadata.update(body.userId, body.metadataUpdate),
      status: 'OK' as const,
    }),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/user/metadata/remove',
    schema: { body: UserIdBody, response: { 200: OkStatus, 400: TextError } },
    scope: 'app',
    handle: async ({ body }) => {
      await app.services.userMetadata.remove(body.userId);
      return { status: 'OK' as const };
    },
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/user/metadata/bulk',
    schema: { body: BulkMetadataBody, response: { 200: BulkMetadataResponse, 400: TextError } },
    parse: ({ body }) => {
      if (body.userIds.length > MAX_BULK_USERS) throw coreError('BULK_QUERY_TOO_MANY_USERS', MAX_BULK_USERS);
      if (!body.userIds.every((id) => typeof id === 'string')) throw coreError('USER_IDS_NOT_STRINGS');
      return body.userIds as string[];
    },
    scope: 'app',
    handle: async (userIds) => ({ status: 'OK' as const, users: await app.services.userMetadata.getMany(userIds) }),
  });
};

export default metadataRoutes;
