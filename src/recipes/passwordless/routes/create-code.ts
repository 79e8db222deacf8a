import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { assertTenantScope } from '../../../plugins/request-pipeline.js';
import { parseCreateCode } from './request-inputs.js';
import { CreateCodeBody, CreateCodeResponse } from '../schemas.js';

// Every passwordless route is 'custom' scope: the contract checks the tenant after the "exactly one of" rules.
const createCode: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/recipe/signinup/code', {
    config: { scope: 'custom' },
    schema: { body: CreateCodeBody, response: { 200: CreateCodeResponse } },
    handler: async (request) => {
      const { target, userInputCode } = parseCreateCode(request.body);
      assertTenantScope(request);
      return app.services.passwordless.createCode(request.tenantId, target, userInputCode);
    },
  });
};

export default createCode;
