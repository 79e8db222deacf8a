import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { assertTenantScope } from '../../../plugins/request-pipeline.js';
import { ImportPasswordHashBody, ImportPasswordHashResponse, TextError } from '../schemas.js';
import { toUserObject } from '../../../users/user-object.js';

const passwordHashImport: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/recipe/user/passwordhash/import', {
    // The tenant check sits between the input checks and the format check (§6.1), so the service runs it.
    config: { scope: 'custom' },
    schema: { body: ImportPasswordHashBody, response: { 200: ImportPasswordHashResponse, 400: TextError, 500: TextError } },
    handler: async (request) => {
      const { email, passwordHash, hashingAlgorithm } = request.body;
      const result = await app.services.emailPassword.importPasswordHash(
        { tenantId: request.tenantId, email, passwordHash, hashingAlgorithm },
        () => assertTenantScope(request),
      );
      return { status: result.status, user: toUserObject(result.user, request.cdiVersion), didUserAlreadyExist: result.didUserAlreadyExist };
    },
  });
};

export default passwordHashImport;
