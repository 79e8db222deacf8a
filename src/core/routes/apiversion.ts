import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import { listedCdiVersions } from '../../http/cdi-version.js';
import { defineRoute } from '../../http/route.js';

const ApiVersionQuery = Type.Object({ websiteDomain: Type.Optional(Type.String()), apiDomain: Type.Optional(Type.String()) });
const ApiVersionResponse = Type.Object({ versions: Type.Array(Type.String()) });

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
