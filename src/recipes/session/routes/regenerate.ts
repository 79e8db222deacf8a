import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../../http/route.js';
import { RegenerateBody, RegenerateResponse, TextError } from '../schemas.js';
import { assertAppExists, requireSessionCdi } from './cdi.js';

// S-4.4: the SDK's mergeIntoAccessTokenPayload and claim updates on a live session.
const regenerate: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/recipe/session/regenerate',
    schema: { body: RegenerateBody, response: { 200: RegenerateResponse, 400: TextError } },
    preValidation: requireSessionCdi,
    scope: 'any',
    handle: async ({ body, cdiVersion, ...request }) => {
      assertAppExists(request);
      return app.services.session.regenerate(body.accessToken, body.userDataInJWT, cdiVersion);
    },
  });
};

export default regenerate;
