import type { FastifyPluginAsync } from 'fastify';
import { coreError } from '../../../errors.js';
import { defineRoute } from '../../../http/route.js';
import {
  ConsumeResetTokenBody,
  ConsumeResetTokenResponse,
  ResetPasswordBody,
  ResetPasswordResponse,
  ResetTokenBody,
  ResetTokenResponse,
  TextError,
} from '../schemas.js';

function assertTokenMethod(method: string): void {
  if (method !== 'token') throw coreError('PASSWORD_RESET_METHOD');
}

// What the SDK's forgot-password flow calls: make a token, spend it, then PUT /recipe/user with the new password.
const passwordReset: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/recipe/user/password/reset/token',
    schema: { body: ResetTokenBody, response: { 200: ResetTokenResponse, 400: TextError } },
    scope: 'tenant',
    handle: async ({ body }, { tenantId }) => app.services.passwordReset.createToken(tenantId, body.userId, body.email),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/user/password/reset/token/consume',
    schema: { body: ConsumeResetTokenBody, response: { 200: ConsumeResetTokenResponse, 400: TextError } },
    parse: ({ body }) => {
      if (body.method !== undefined) assertTokenMethod(body.method);
      return body;
    },
    scope: 'tenant',
    handle: async ({ token }) => app.services.passwordReset.consumeToken(token),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/user/password/reset',
    schema: { body: ResetPasswordBody, response: { 200: ResetPasswordResponse, 400: TextError } },
    parse: ({ body }) => {
      assertTokenMethod(body.method);
      if (body.newPassword === '') throw coreError('PASSWORD_EMPTY');
      return body;
    },
    scope: 'tenant',
    handle: async ({ token, newPassword }) => app.services.passwordReset.resetPassword(token, newPassword),
  });
};

export default passwordReset;
