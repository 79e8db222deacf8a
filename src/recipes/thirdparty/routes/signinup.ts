import type { FastifyPluginAsync } from 'fastify';
import { cdiAtLeast } from '../../../http/cdi-version.js';
import { defineRoute } from '../../../http/route.js';
import { recipeUserIdField } from '../../../users/user-object.js';
import { toUserObject } from '../../../users/user-object.js';
import { SignInUpBody, SignInUpResponse } from '../schemas.js';

const signInUp: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/recipe/signinup',
    schema: { body: SignInUpBody, response: { 200: SignInUpResponse } },
    scope: 'tenant',
    handle: async ({ body, tenantId, cdiVersion }) => {
      const { thirdPartyId, thirdPartyUserId, email } = body;
      const result = await app.services.thirdParty.signInUp({
        tenantId,
        thirdPartyId,
        thirdPartyUserId,
        email: email.id,
        // Below cdi 4.0 the reference ignores isVerified.
        isVerified: cdiAtLeast(cdiVersion, '4.0') && email.isVerified === true,
      });
      return {
        status: result.status,
        createdNewUser: result.createdNewUser,
        user: toUserObject(result.user, cdiVersion),
        ...recipeUserIdField(result.loginMethod, cdiVersion),
      };
    },
  });
};

export default signInUp;
