import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../../http/route.js';
import { coreError, invalidField } from '../../../errors.js';
import { parseProvider } from '../provider-config.js';
import { AnyBody, CreatedResponse, RemoveProviderResponse, TextError } from '../schemas.js';
import { assertTenantExists } from './tenant-check.js';

const thirdPartyConfigRoutes: FastifyPluginAsync = async (app) => {
  const multitenancy = () => app.services.multitenancy;

  // M5: adds the provider to the path's tenant, or replaces the one with the same thirdPartyId in place.
  defineRoute(app, {
    method: 'PUT',
    url: '/recipe/multitenancy/config/thirdparty',
    schema: { body: AnyBody, response: { 200: CreatedResponse, 400: TextError } },
    scope: 'any',
    parse: ({ body }) => {
      const skipValidation = body.skipValidation ?? false;
      if (typeof skipValidation !== 'boolean') throw invalidField('skipValidation');
      return parseProvider(body.config, skipValidation);
    },
    handle: async (provider, request) => {
      await assertTenantExists(app, request);
      const result = await multitenancy().putProvider(request.tenantId, provider);
      if (!result) throw coreError('TENANT_NOT_FOUND', request.appId, request.tenantId);
      return result;
    },
  });

  // M6
  defineRoute(app, {
    method: 'POST',
    url: '/recipe/multitenancy/config/thirdparty/remove',
    schema: { body: AnyBody, response: { 200: RemoveProviderResponse, 400: TextError } },
    scope: 'any',
    parse: ({ body }) => {
      if (typeof body.thirdPartyId !== 'string') throw invalidField('thirdPartyId');
      return body.thirdPartyId.trim();
    },
    handle: async (thirdPartyId, request) => {
      await assertTenantExists(app, request);
      return multitenancy().removeProvider(request.tenantId, thirdPartyId);
    },
  });
};

export default thirdPartyConfigRoutes;
