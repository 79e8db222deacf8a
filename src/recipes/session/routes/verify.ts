import type { FastifyPluginAsync } from 'fastify';
import { coreError } from '../../../errors.js';
import { cdiAtLeast } from '../../../http/cdi-version.js';
import { defineRoute } from '../../../http/route.js';
import { TextError, VerifySessionBody, VerifySessionResponse } from '../schemas.js';
import { assertAppExists, optionalBoolean, requireSessionCdi } from './cdi.js';

// S-4.2: the SDK calls this only for the first use of a token after a legacy refresh, or with checkDatabase.
const verifySession: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/recipe/session/verify',
    schema: { body: VerifySessionBody, response: { 200: VerifySessionResponse, 400: TextError } },
    preValidation: requireSessionCdi,
    // The tenant comes from the token: the path's segment is ignored below cdi 5.6 and refused from 5.6.
    scope: 'any',
    handle: async ({ body, cdiVersion, ...request }) => {
      assertAppExists(request);
      if (cdiAtLeast(cdiVersion, '5.6') && request.tenantId !== 'public') throw coreError('APP_SPECIFIC_API');
      const checkDatabase = optionalBoolean(body.checkDatabase, 'checkDatabase');
      if (checkDatabase === undefined) throw coreError('INVALID_FIELD', 'checkDatabase');
      return app.services.session.verify({
        accessToken: body.accessToken,
        antiCsrfToken: body.antiCsrfToken,
        doAntiCsrfCheck: body.doAntiCsrfCheck,
        enableAntiCsrf: body.enableAntiCsrf,
        checkDatabase,
        cdi: cdiVersion,
      });
    },
  });
};

export default verifySession;
