import type { FastifyPluginAsync } from 'fastify';
import { cdiAtLeast } from '../../../http/cdi-version.js';
import { defineRoute } from '../../../http/route.js';
import { assertNoProtectedClaim } from '../service.js';
import { accessTokenVersionFor } from '../access-token.js';
import { CreateSessionBody, CreateSessionResponse, TextError } from '../schemas.js';
import { optionalBoolean, requireSessionCdi } from './cdi.js';

// S-4.1: the SDK's createNewSession, right after every sign-in and sign-up.
const createSession: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/recipe/session',
    schema: { body: CreateSessionBody, response: { 200: CreateSessionResponse, 400: TextError } },
    preValidation: requireSessionCdi,
    parse: (request) => {
      const { body, cdiVersion } = request;
      assertNoProtectedClaim(body.userDataInJWT, accessTokenVersionFor(cdiVersion));
      const accessTokenValidityMs =
        cdiAtLeast(cdiVersion, '5.6') && body.accessTokenValidity !== undefined
          ? app.services.session.checkAccessTokenValidity(body.accessTokenValidity)
          : undefined;
      return { ...request, accessTokenValidityMs };
    },
    scope: 'tenant',
    handle: async ({ body, tenantId, cdiVersion, accessTokenValidityMs }) => {
      const useDynamicSigningKey = optionalBoolean(body.useDynamicSigningKey, 'useDynamicSigningKey');
      return app.services.session.create({
        userId: body.userId,
        enableAntiCsrf: body.enableAntiCsrf,
        userDataInJWT: body.userDataInJWT,
        userDataInDatabase: body.userDataInDatabase,
        accessTokenValidityMs,
        useStaticKey: useDynamicSigningKey === false,
        tenantId,
        cdi: cdiVersion,
      });
    },
  });
};

export default createSession;
