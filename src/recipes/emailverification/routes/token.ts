import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../../http/route.js';
import { OkStatus } from '../../../http/schemas.js';
import { CreateTokenResponse, TextError, UserEmailBody } from '../schemas.js';

// Tokens are made and revoked per tenant, as in the reference core.
const verificationTokens: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/recipe/user/email/verify/token',
    schema: { body: UserEmailBody, response: { 200: CreateTokenResponse, 400: TextError } },
    scope: 'tenant',
    handle: async ({ body, tenantId }) => app.services.emailVerification.createToken(tenantId, body.userId, body.email),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/user/email/verify/token/remove',
    schema: { body: UserEmailBody, response: { 200: OkStatus, 400: TextError } },
    scope: 'tenant',
    handle: async ({ body, tenantId }) => {
      await app.services.emailVerification.revokeTokens(tenantId, body.userId, body.email);
      return { status: 'OK' as const };
    },
  });
};

export default verificationTokens;
