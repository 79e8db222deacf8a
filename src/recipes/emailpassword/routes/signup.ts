import type { FastifyPluginAsync } from 'fastify';
import { coreError } from '../../../errors.js';
import { defineRoute } from '../../../http/route.js';
import { CredentialsBody, SignUpResponse, TextError } from '../schemas.js';
import { signedInBody } from '../../../users/user-object.js';

const signUp: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/recipe/signup',
    schema: { body: CredentialsBody, response: { 200: SignUpResponse, 400: TextError, 500: TextError } },
    // The empty-password check comes before the tenant check (§6.3).
    parse: ({ body }) => {
      if (body.password === '') throw coreError('PASSWORD_EMPTY');
      return body;
    },
    scope: 'tenant',
    loginRecipe: 'emailpassword',
    handle: async ({ email, password }, { tenantId, cdiVersion }) => {
      const result = await app.services.emailPassword.signUp({ tenantId, email, password });
      if (result.status !== 'OK') return result;
      return signedInBody(result, cdiVersion);
    },
  });
};

export default signUp;
