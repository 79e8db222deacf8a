import type { FastifyPluginAsync } from 'fastify';
import { listedCdiVersions } from '../../http/cdi-version.js';
import { defineRoute } from '../../http/route.js';
import { ApiVersionQuery, ApiVersionResponse } from '../schemas.js';

const apiVersion: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'GET',
    url: '/apiversion',
    schema: { querystring: ApiVersionQuery, response: { 200: ApiVersionResponse } },
    scope: 'app',
    handle: async () => ({ versions: listedCdiVersions(app.services.config.max_cdi_version) }),
  });
};

export default apiVersion;
