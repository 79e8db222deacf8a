import type { FastifyPluginAsync } from 'fastify';
import { cdiAtLeast } from '../../../http/cdi-version.js';
import { defineRoute } from '../../../http/route.js';
import { parseRedeem } from './request-inputs.js';
import { CheckCodeResponse, ConsumeCodeBody, ConsumeCodeResponse } from '../schemas.js';
import { recipeUserIdField, toUserObject } from '../../../users/user-object.js';

// Every passwordless route checks the tenant after its "exactly one of" rules (§5).
const consumeCode: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/recipe/signinup/code/consume',
    schema: { body: ConsumeCodeBody, response: { 200: ConsumeCodeResponse } },
    parse: ({ tenantId, body }) => parseRedeem(tenantId, body),
    scope: 'tenant',
    loginRecipe: 'passwordless',
    handle: async (input, { cdiVersion: version }) => {
      // Before cdi 4.0 consuming a code did not verify the email (contract §11).
      const result = await app.services.passwordless.consumeCode(input, { markEmailVerified: cdiAtLeast(version, '4.0') });
      if (result.status !== 'OK') return result;
      return {
        status: result.status,
        createdNewUser: result.createdNewUser,
        user: toUserObject(result.user, version),
        ...recipeUserIdField(result.loginMethod, version),
        ...(cdiAtLeast(version, '5.0') && { consumedDevice: result.consumedDevice }),
      };
    },
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/signinup/code/check',
    schema: { body: ConsumeCodeBody, response: { 200: CheckCodeResponse } },
    parse: ({ tenantId, body }) => parseRedeem(tenantId, body),
    scope: 'tenant',
    loginRecipe: 'passwordless',
    handle: async (input) => app.services.passwordless.checkCode(input),
  });
};

export default consumeCode;
