import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../../http/route.js';
import { requiredQuery } from '../../../http/query.js';
import { toUserObject } from '../../../users/user-object.js';
import {
  ConsumeTokenResponse,
  RecoverTokenBody,
  RecoverTokenResponse,
  RecoverUserResponse,
  TextError,
  TokenBody,
  TokenQuery,
  UpdateEmailBody,
  UpdateEmailResponse,
} from '../schemas.js';

const recoverRoutes: FastifyPluginAsync = async (app) => {
  const webauthn = () => app.services.webauthn;

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/webauthn/user/recover/token',
    schema: { body: RecoverTokenBody, response: { 200: RecoverTokenResponse, 400: TextError } },
    scope: 'tenant',
    handle: async ({ body }, { tenantId }) => webauthn().generateRecoverToken(tenantId, body.userId, body.email),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/webauthn/user/recover/token/consume',
    schema: { body: TokenBody, response: { 200: ConsumeTokenResponse, 400: TextError } },
    scope: 'tenant',
    handle: async ({ body }, { tenantId }) => webauthn().consumeRecoverToken(tenantId, body.token),
  });

  defineRoute(app, {
    method: 'GET',
    url: '/recipe/webauthn/user/recover',
    schema: { querystring: TokenQuery, response: { 200: RecoverUserResponse, 400: TextError } },
    parse: ({ query }) => requiredQuery(query, 'token'),
    scope: 'tenant',
    handle: async (token, { tenantId, cdiVersion }) => {
      const result = await webauthn().userOfRecoverToken(tenantId, token);
      if (result.status !== 'OK') return result;
      return {
        status: 'OK' as const,
        user: toUserObject(result.user, cdiVersion),
        email: result.email,
        ...(result.recipeUserId !== undefined && { recipeUserId: result.recipeUserId }),
      };
    },
  });

  defineRoute(app, {
    method: 'PUT',
    url: '/recipe/webauthn/user/email',
    schema: { body: UpdateEmailBody, response: { 200: UpdateEmailResponse, 400: TextError } },
    scope: 'tenant',
    handle: async ({ body }) => webauthn().updateEmail(body.recipeUserId, body.email),
  });
};

export default recoverRoutes;
