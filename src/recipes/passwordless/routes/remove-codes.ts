import type { FastifyPluginAsync } from 'fastify';
import { cdiAtLeast } from '../../../http/cdi-version.js';
import { defineRoute } from '../../../http/route.js';
import { parseCodeToRemove, parseContact } from './request-inputs.js';
import { RemoveCodeBody, RemoveCodesBody } from '../schemas.js';
import { OkStatus } from '../../../http/schemas.js';

const removeCodes: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/recipe/signinup/code/remove',
    schema: { body: RemoveCodeBody, response: { 200: OkStatus } },
    parse: ({ body, cdiVersion }) => parseCodeToRemove(body, cdiAtLeast(cdiVersion, '5.0')),
    scope: 'tenant',
    handle: async (target, { tenantId }) => {
      await app.services.passwordless.removeCode(tenantId, target);
      return { status: 'OK' as const };
    },
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/signinup/codes/remove',
    schema: { body: RemoveCodesBody, response: { 200: OkStatus } },
    parse: ({ body }) => parseContact(body),
    scope: 'tenant',
    handle: async ({ kind, value }, { tenantId }) => {
      await app.services.passwordless.removeCodesByContact(tenantId, kind, value);
      return { status: 'OK' as const };
    },
  });
};

export default removeCodes;
