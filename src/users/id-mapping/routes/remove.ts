import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { RemoveMappingBody, RemoveMappingResponse } from '../schemas.js';

const removeMapping: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/recipe/userid/map/remove', {
    config: { scope: 'app' },
    schema: { body: RemoveMappingBody, response: { 200: RemoveMappingResponse } },
    handler: async (request) => app.services.userIdMapping.removeMapping(request.body.userId, request.body.userIdType),
  });
};

export default removeMapping;
