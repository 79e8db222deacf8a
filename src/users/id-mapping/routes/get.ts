import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { GetMappingQuery, GetMappingResponse } from '../schemas.js';

const getMapping: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/recipe/userid/map', {
    config: { scope: 'app' },
    schema: { querystring: GetMappingQuery, response: { 200: GetMappingResponse } },
    handler: async (request) => app.services.userIdMapping.getMapping(request.query.userId, request.query.userIdType),
  });
};

export default getMapping;
