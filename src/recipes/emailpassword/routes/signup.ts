import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { assertTenantScope } from '../../../plugins/request-pipeline.js';
import { CredentialsBody, SignUpResponse, TextError } from '../schemas.js';
import { signedInBody } from '../../../users/user-object.js';

const signUp: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/recipe/signup', {
    // The empty-password check comes before the tenant check, so the service runs it.
    config: { scope: 'custom' },
    schema: { body: CredentialsBody, response: { 200: SignUpResponse, 400: TextError, 500: TextError } },
    handler: async (request) => {
      const { email, password } = request.body;
      const result = await app.services.emailPassword.signUp({ tenantId: request.tenantId, email, password }, () =>
        assertTenantScope(request),
      );
      if (result.status !== 'OK') return result;
      return signedInBody(result.user, request.cdiVersion);
    },
  });
};

export default signUp;
