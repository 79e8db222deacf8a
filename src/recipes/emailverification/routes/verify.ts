import type { FastifyPluginAsync } from 'fastify';
import { coreError } from '../../../errors.js';
import { defineRoute } from '../../../http/route.js';
import { OkStatus } from '../../../http/schemas.js';
import { IsVerifiedResponse, TextError, UserEmailBody, UserEmailQuery, VerifyEmailBody, VerifyEmailResponse } from '../schemas.js';

// Spending a token is per tenant; reading and removing a verification are app-wide, as in the reference core.
const verify: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/recipe/user/email/verify',
    schema: { body: VerifyEmailBody, response: { 200: VerifyEmailResponse, 400: TextError } },
    parse: ({ body }) => {
      if (body.method !== 'token') throw coreError('EMAIL_VERIFICATION_METHOD');
      return body;
    },
    scope: 'tenant',
    handle: async ({ token }, { tenantId }) => app.services.emailVerification.verifyEmail(tenantId, token),
  });

  defineRoute(app, {
    method: 'GET',
    url: '/recipe/user/email/verify',
    schema: { querystring: UserEmailQuery, response: { 200: IsVerifiedResponse, 400: TextError } },
    scope: 'app',
    handle: async ({ query }) => ({
      status: 'OK' as const,
      isVerified: await app.services.emailVerification.isVerified(query.userId, query.email),
    }),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/user/email/verify/remove',
    schema: { body: UserEmailBody, response: { 200: OkStatus, 400: TextError } },
    scope: 'app',
    handle: async ({ body }) => {
      await app.services.emailVerification.unverify(body.userId, body.email);
      return { status: 'OK' as const };
    },
  });
};

export default verify;
