import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { cdiAtLeast } from '../../../http/cdi-version.js';
import { assertTenantScope } from '../../../plugins/request-pipeline.js';
import { parseRedeem } from './request-inputs.js';
import { CheckCodeResponse, ConsumeCodeBody, ConsumeCodeResponse } from '../schemas.js';
import { recipeUserIdField, toUserObject } from '../../../users/user-object.js';

const consumeCode: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/recipe/signinup/code/consume', {
    config: { scope: 'custom' },
    schema: { body: ConsumeCodeBody, response: { 200: ConsumeCodeResponse } },
    handler: async (request) => {
      const input = parseRedeem(request.tenantId, request.body);
      assertTenantScope(request);
      const version = request.cdiVersion;
      // Before cdi 4.0 consuming a code did not verify the email (contract §11).
      const result = await app.services.passwordless.consumeCode(input, { markEmailVerified: cdiAtLeast(version, '4.0') });
      if (result.status !== 'OK') return result;
      return {
        status: result.status,
        createdNewUser: result.createdNewUser,
        user: toUserObject(result.user, version),
        ...recipeUserIdField(result.user, version),
        ...(cdiAtLeast(version, '5.0') && { consumedDevice: result.consumedDevice }),
      };
    },
  });

  app.post('/recipe/signinup/code/check', {
    config: { scope: 'custom' },
    schema: { body: ConsumeCodeBody, response: { 200: CheckCodeResponse } },
    handler: async (request) => {
      const input = parseRedeem(request.tenantId, request.body);
      assertTenantScope(request);
      return app.services.passwordless.checkCode(input);
    },
  });
};

export default consumeCode;
