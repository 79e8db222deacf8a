import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../../http/route.js';
import { CredentialsBody, SignInResponse, TextError } from '../schemas.js';
import { signedInBody } from '../../../users/user-object.js';

const signIn: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/recipe/signin',
    schema: { body: CredentialsBody, response: { 200: SignInResponse, 400: TextError, 429: TextError, 500: TextError, 503: TextError } },
    scope: 'tenant',
    loginRecipe: 'emailpassword',
    handle: async ({ body, tenantId, cdiVersion, ip }) => {
      const result = await app.services.emailPassword.signIn(tenantId, body.email, body.password, ip);
      if (result.status !== 'OK') return result;
      return signedInBody(result, cdiVersion);
    },
  });
};

export default signIn;
