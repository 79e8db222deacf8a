import type { FastifyPluginAsync } from 'fastify';
import { errorMessage } from '../../../errors.js';
import { defineRoute } from '../../../http/route.js';
import {
  JwtDataBody,
  JwtDataResponse,
  SessionDataBody,
  SessionDataResponse,
  SessionHandleQuery,
  SessionInfoResponse,
  TextError,
  UpdateResponse,
} from '../schemas.js';
import { assertAppExists, requireSessionCdi } from './cdi.js';

const sessionDoesNotExist = { status: 'UNAUTHORISED' as const, message: errorMessage('SESSION_DOES_NOT_EXIST') };

// S-4.5 and S-4.8: reads and updates by handle; the tenant is the handle's, the path's segment is ignored.
const sessionInfo: FastifyPluginAsync = async (app) => {
  const { session } = app.services;

  defineRoute(app, {
    method: 'GET',
    url: '/recipe/session',
    schema: { querystring: SessionHandleQuery, response: { 200: SessionInfoResponse, 400: TextError } },
    preValidation: requireSessionCdi,
    scope: 'any',
    handle: async ({ query, cdiVersion, ...request }) => {
      assertAppExists(request);
      return session.getSessionInformation(query.sessionHandle, cdiVersion);
    },
  });

  defineRoute(app, {
    method: 'PUT',
    url: '/recipe/session/data',
    schema: { body: SessionDataBody, response: { 200: UpdateResponse, 400: TextError } },
    preValidation: requireSessionCdi,
    scope: 'any',
    handle: async ({ body, ...request }) => {
      assertAppExists(request);
      return session.updateSessionData(body.sessionHandle, body.userDataInDatabase);
    },
  });

  defineRoute(app, {
    method: 'PUT',
    url: '/recipe/jwt/data',
    schema: { body: JwtDataBody, response: { 200: UpdateResponse, 400: TextError } },
    preValidation: requireSessionCdi,
    scope: 'any',
    handle: async ({ body, cdiVersion, ...request }) => {
      assertAppExists(request);
      return session.updateAccessTokenPayload(body.sessionHandle, body.userDataInJWT, cdiVersion);
    },
  });

  // Deprecated since CDI 2.8 and unused by the SDK, served for older tools (S-4.8).
  defineRoute(app, {
    method: 'GET',
    url: '/recipe/session/data',
    schema: { querystring: SessionHandleQuery, response: { 200: SessionDataResponse, 400: TextError } },
    preValidation: requireSessionCdi,
    scope: 'any',
    handle: async ({ query, ...request }) => {
      assertAppExists(request);
      const payloads = await session.findPayloads(query.sessionHandle);
      return payloads ? { status: 'OK' as const, userDataInDatabase: payloads.userDataInDatabase } : sessionDoesNotExist;
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: '/recipe/jwt/data',
    schema: { querystring: SessionHandleQuery, response: { 200: JwtDataResponse, 400: TextError } },
    preValidation: requireSessionCdi,
    scope: 'any',
    handle: async ({ query, ...request }) => {
      assertAppExists(request);
      const payloads = await session.findPayloads(query.sessionHandle);
      return payloads ? { status: 'OK' as const, userDataInJWT: payloads.userDataInJWT } : sessionDoesNotExist;
    },
  });
};

export default sessionInfo;
