import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { cdiAtLeast } from '../../../http/cdi-version.js';
import { assertTenantScope } from '../../../plugins/request-pipeline.js';
import { parseCodeToRemove, parseContact } from './request-inputs.js';
import { RemoveCodeBody, RemoveCodesBody } from '../schemas.js';
import { OkStatus } from '../../../http/schemas.js';

const removeCodes: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/recipe/signinup/code/remove', {
    config: { scope: 'custom' },
    schema: { body: RemoveCodeBody, response: { 200: OkStatus } },
    handler: async (request) => {
      const target = parseCodeToRemove(request.body, cdiAtLeast(request.cdiVersion, '5.0'));
      assertTenantScope(request);
      await app.services.passwordless.removeCode(request.tenantId, target);
      return { status: 'OK' as const };
    },
  });

  app.post('/recipe/signinup/codes/remove', {
    config: { scope: 'custom' },
    schema: { body: RemoveCodesBody, response: { 200: OkStatus } },
    handler: async (request) => {
      const { kind, value } = parseContact(request.body);
      assertTenantScope(request);
      await app.services.passwordless.removeCodesByContact(request.tenantId, kind, value);
      return { status: 'OK' as const };
    },
  });
};

export default removeCodes;
