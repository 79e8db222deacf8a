import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { assertTenantScope } from '../../../plugins/request-pipeline.js';
import { parseDeviceLookup } from './request-inputs.js';
import { ListCodesQuery, ListCodesResponse } from '../schemas.js';

const listCodes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/recipe/signinup/codes', {
    config: { scope: 'custom' },
    schema: { querystring: ListCodesQuery, response: { 200: ListCodesResponse } },
    handler: async (request) => {
      const lookup = parseDeviceLookup(request.query);
      assertTenantScope(request);
      return { status: 'OK' as const, devices: await app.services.passwordless.listDevices(request.tenantId, lookup) };
    },
  });
};

export default listCodes;
