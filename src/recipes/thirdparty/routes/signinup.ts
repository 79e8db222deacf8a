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
    loginRecipe: 'thirdparty',
    handle: async ({ body, tenantId, cdiVersion }) => {
      const { thirdPartyId, thirdPartyUserId, email } = body;
      const result = await app.services.thirdParty.signInUp({
        tenantId,
        thirdPartyId,
        thirdPartyUserId,
        email: email.id,
        // The reference applies isVerified from cdi 4.0 and on its legacy 2.7 path; from 2.8 to 3.x it ignores it.
        isVerified: (cdiAtLeast(cdiVersion, '4.0') || cdiVersion.text === '2.7') && email.isVerified === true,
      });
      if (result.status !== 'OK') return result;
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
