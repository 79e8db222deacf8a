import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { cdiAtLeast } from '../../../http/cdi-version.js';
import { CreateMappingBody, CreateMappingResponse } from '../schemas.js';

const createMapping: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/recipe/userid/map', {
    config: { scope: 'app' },
    schema: { body: CreateMappingBody, response: { 200: CreateMappingResponse } },
    handler: async (request) => {
      const { superTokensUserId, externalUserId, externalUserIdInfo, force } = request.body;
      return app.services.userIdMapping.createMapping({
        superTokensUserId,
        externalUserId,
        externalUserIdInfo,
        force: force ?? false,
        // Clients before cdi 4.0 expect pre-existing verification data to block the mapping.
        keepEmailVerification: cdiAtLeast(request.cdiVersion, '4.0'),
      });
    },
  });
};

export default createMapping;
