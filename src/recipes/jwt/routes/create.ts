import type { FastifyPluginAsync } from 'fastify';
import { coreError } from '../../../errors.js';
import { defineRoute } from '../../../http/route.js';
import { findSessionOnlyClaim } from '../../session/access-token.js';
import { requireSessionCdi } from '../../session/routes/cdi.js';
import { CreateJwtBody, CreateJwtResponse, TextError } from '../schemas.js';

// S-3.4: a JWT signed with the app's keys; a payload naming a claim only a session carries is refused.
const createJwtRoute: FastifyPluginAsync = async (app) => {
  const { jwt } = app.services;

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

export default createJwtRoute;
