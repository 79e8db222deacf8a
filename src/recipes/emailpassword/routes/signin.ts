import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CredentialsBody, SignInResponse, TextError } from '../schemas.js';
import { signedInBody } from '../../../users/user-object.js';

const signIn: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/recipe/signin', {
    config: { scope: 'tenant' },
    schema: { body: CredentialsBody, response: { 200: SignInResponse, 400: TextError, 500: TextError } },
    handler: async (request) => {
      const result = await app.services.emailPassword.signIn(request.tenantId, request.body.email, request.body.password, request.ip);
      if (result.status !== 'OK') return result;
      return signedInBody(result.user, request.cdiVersion);
    },
  });
};

export default signIn;
