import type { FastifyPluginAsync } from 'fastify';
import { coreError } from '../../../errors.js';
import { defineRoute } from '../../../http/route.js';
import { findSessionOnlyClaim } from '../../session/access-token.js';
import { requireSessionCdi } from '../../session/routes/cdi.js';
import { CreateJwtBody, CreateJwtResponse, JwksDocument, JwksWithStatus, TextError } from '../schemas.js';

// S-3.2 to S-3.4. The public JWKS is what the SDK (through jose) fetches without an api key to verify access tokens
// locally; it is served from memory, serialised once per key change.
const jwtRoutes: FastifyPluginAsync = async (app) => {
  const { keys, jwt } = app.services;

  defineRoute(app, {
    method: 'GET',
    url: '/.well-known/jwks.json',
    schema: { response: { 200: JwksDocument } },
    scope: 'app',
    handle: async (_input, _request, reply) => {
      const { body, maxAgeSeconds } = await keys.jwks();
      void reply.header('cache-control', `max-age=${maxAgeSeconds}, must-revalidate`).type('application/json');
      // A string is sent as it is, so the cached document is not serialised again.
      return body as never;
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: '/recipe/jwt/jwks',
    schema: { response: { 200: JwksWithStatus, 400: TextError } },
    preValidation: requireSessionCdi,
    scope: 'app',
    handle: async () => ({ keys: (await keys.publicKeys()) as never, status: 'OK' as const }),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/jwt',
    schema: { body: CreateJwtBody, response: { 200: CreateJwtResponse, 400: TextError } },
    preValidation: requireSessionCdi,
    parse: (request) => {
      if (request.body.validity <= 0) throw coreError('JWT_VALIDITY_NOT_POSITIVE');
      const sessionClaim = findSessionOnlyClaim(request.body.payload);
      if (sessionClaim !== undefined) throw coreError('JWT_PAYLOAD_SESSION_CLAIM', sessionClaim);
      return request;
    },
    scope: 'app',
    handle: async ({ body }) =>
      jwt.createJwt({
        algorithm: body.algorithm,
        jwksDomain: body.jwksDomain,
        payload: body.payload,
        validitySeconds: body.validity,
        useStaticSigningKey: body.useStaticSigningKey ?? true,
      }),
  });
};

export default jwtRoutes;
