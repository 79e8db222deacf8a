import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import { compareCdiVersions, parseCdiVersion, supportedCdiVersions } from '../../http/cdi-version.js';

const ApiVersionResponse = Type.Object({ versions: Type.Array(Type.String()) });

const apiVersion: FastifyPluginAsync = async (app) => {
  app.get('/apiversion', {
    config: { scope: 'app' },
    schema: { querystring: Type.Object({ websiteDomain: Type.Optional(Type.String()), apiDomain: Type.Optional(Type.String()) }), response: { 200: ApiVersionResponse } },
    handler: async (request) => {
      const max = request.server.services.config.max_cdi_version;
      return { versions: supportedCdiVersions.filter((version) => compareCdiVersions(parseCdiVersion(version)!, max) <= 0) };
    },
  });
};

export default apiVersion;
