import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { UpdateExternalUserIdInfoBody, UpdateExternalUserIdInfoResponse } from '../schemas.js';

const externalUserIdInfo: FastifyPluginAsyncTypebox = async (app) => {
  app.put('/recipe/userid/external-user-id-info', {
    config: { scope: 'app' },
    schema: { body: UpdateExternalUserIdInfoBody, response: { 200: UpdateExternalUserIdInfoResponse } },
    handler: async (request) => {
      const { userId, userIdType, externalUserIdInfo: info } = request.body;
      return app.services.userIdMapping.updateExternalUserIdInfo(userId, userIdType, info);
    },
  });
};

export default externalUserIdInfo;
