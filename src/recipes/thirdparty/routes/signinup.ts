import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { cdiAtLeast } from '../../../http/cdi-version.js';
import { recipeUserIdField } from '../../../users/user-object.js';
import { toUserObject } from '../../../users/user-object.js';
import { SignInUpBody, SignInUpResponse } from '../schemas.js';

const signInUp: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/recipe/signinup', {
    config: { scope: 'tenant' },
    schema: { body: SignInUpBody, response: { 200: SignInUpResponse } },
    handler: async (request) => {
      const { thirdPartyId, thirdPartyUserId, email } = request.body;
      const result = await app.services.thirdParty.signInUp({
        tenantId: request.tenantId,
        thirdPartyId,
        thirdPartyUserId,
        email: email.id,
        // Below cdi 4.0 the reference ignores isVerified.
        isVerified: cdiAtLeast(request.cdiVersion, '4.0') && email.isVerified === true,
      });
      return {
        status: result.status,
        createdNewUser: result.createdNewUser,
        user: toUserObject(result.user, request.cdiVersion),
        ...recipeUserIdField(result.user, request.cdiVersion),
      };
    },
  });
};

export default signInUp;
