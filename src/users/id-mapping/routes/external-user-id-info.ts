import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../../http/route.js';
import { UpdateExternalUserIdInfoBody, UpdateExternalUserIdInfoResponse } from '../schemas.js';

const externalUserIdInfo: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'PUT',
    url: '/recipe/userid/external-user-id-info',
    schema: { body: UpdateExternalUserIdInfoBody, response: { 200: UpdateExternalUserIdInfoResponse } },
    scope: 'app',
    handle: async ({ body }) => app.services.userIdMapping.updateExternalUserIdInfo(body.userId, body.userIdType, body.externalUserIdInfo),
  });
};

export default externalUserIdInfo;
