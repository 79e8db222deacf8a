import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../../http/route.js';
import { GetMappingQuery, GetMappingResponse } from '../schemas.js';

const getMapping: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'GET',
    url: '/recipe/userid/map',
    schema: { querystring: GetMappingQuery, response: { 200: GetMappingResponse } },
    scope: 'app',
    handle: async ({ query }) => app.services.userIdMapping.getMapping(query.userId, query.userIdType),
  });
};

export default getMapping;
