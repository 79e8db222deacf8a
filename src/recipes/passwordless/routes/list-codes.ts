import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../../http/route.js';
import { parseDeviceLookup } from './request-inputs.js';
import { ListCodesQuery, ListCodesResponse } from '../schemas.js';

const listCodes: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'GET',
    url: '/recipe/signinup/codes',
    schema: { querystring: ListCodesQuery, response: { 200: ListCodesResponse } },
    parse: ({ query }) => parseDeviceLookup(query),
    scope: 'tenant',
    handle: async (lookup, { tenantId }) => ({
      status: 'OK' as const,
      devices: await app.services.passwordless.listDevices(tenantId, lookup),
    }),
  });
};

export default listCodes;
