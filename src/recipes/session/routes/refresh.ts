import type { FastifyPluginAsync } from 'fastify';
import { coreError } from '../../../errors.js';
import { cdiAtLeast } from '../../../http/cdi-version.js';
import { defineRoute } from '../../../http/route.js';
import { RefreshSessionBody, RefreshSessionResponse, TextError } from '../schemas.js';
import { optionalBoolean, requireSessionCdi } from './cdi.js';

// S-4.3: useDynamicSigningKey is ignored below cdi 3.0 and required from 5.0; the tenant comes from the token,
// but the path's tenant must exist.
const refreshSession: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/recipe/session/refresh',
    schema: { body: RefreshSessionBody, response: { 200: RefreshSessionResponse, 400: TextError } },
    preValidation: requireSessionCdi,
    parse: (request) => {
      const { body, cdiVersion } = request;
      let useDynamicSigningKey: boolean | undefined;
      if (cdiAtLeast(cdiVersion, '3.0')) {
        useDynamicSigningKey = optionalBoolean(body.useDynamicSigningKey, 'useDynamicSigningKey');
        if (useDynamicSigningKey === undefined && cdiAtLeast(cdiVersion, '5.0')) throw coreError('INVALID_FIELD', 'useDynamicSigningKey');
      }
      const validity = body.accessTokenValidity;
      if (cdiAtLeast(cdiVersion, '5.6') && validity !== undefined && !Number.isInteger(validity)) {
        throw coreError('INVALID_FIELD', 'accessTokenValidity');
      }
      return { ...request, useDynamicSigningKey };
    },
    scope: 'tenant',
    handle: async ({ body, cdiVersion, useDynamicSigningKey }) =>
      app.services.session.refresh({
        refreshToken: body.refreshToken,
        antiCsrfToken: body.antiCsrfToken,
        enableAntiCsrf: body.enableAntiCsrf,
        useDynamicSigningKey,
        accessTokenValidity: body.accessTokenValidity,
        checkAccessTokenValidity: (value) => app.services.session.checkAccessTokenValidity(value),
        cdi: cdiVersion,
      }),
  });
};

export default refreshSession;
