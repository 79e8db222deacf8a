import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../../http/route.js';
import { RemoveMappingBody, RemoveMappingResponse } from '../schemas.js';

const removeMapping: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/recipe/userid/map/remove',
    schema: { body: RemoveMappingBody, response: { 200: RemoveMappingResponse } },
    scope: 'app',
    handle: async ({ body }) => app.services.userIdMapping.removeMapping(body.userId, body.userIdType, body.force ?? false),
  });
};

export default removeMapping;
