import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../../http/route.js';
import { requireSessionCdi } from '../../session/routes/cdi.js';
import { JwksDocument, JwksWithStatus, TextError } from '../schemas.js';

// S-3.2 and S-3.3. The public JWKS is what the SDK (through jose) fetches without an api key to verify access tokens
// locally; it is served from memory, serialised once per key change.
const jwksRoutes: FastifyPluginAsync = async (app) => {
  const { keys } = app.services;

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
};

export default jwksRoutes;
