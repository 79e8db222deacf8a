import type { FastifyPluginAsync } from 'fastify';
import { cdiAtLeast } from '../../../http/cdi-version.js';
import { defineRoute } from '../../../http/route.js';
import { CreateMappingBody, CreateMappingResponse } from '../schemas.js';

const createMapping: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/recipe/userid/map',
    schema: { body: CreateMappingBody, response: { 200: CreateMappingResponse } },
    scope: 'app',
    handle: async ({ body, cdiVersion }) => {
      const { superTokensUserId, externalUserId, externalUserIdInfo, force } = body;
      return app.services.userIdMapping.createMapping({
        superTokensUserId,
        externalUserId,
        externalUserIdInfo,
        force: force ?? false,
        // Clients before cdi 4.0 expect pre-existing verification data to block the mapping.
        keepEmailVerification: cdiAtLeast(cdiVersion, '4.0'),
      });
    },
  });
};

export default createMapping;
