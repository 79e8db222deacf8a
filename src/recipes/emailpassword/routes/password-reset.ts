import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import { coreError } from '../../../errors.js';
import { defineRoute } from '../../../http/route.js';
import { TextError } from '../schemas.js';

const TokenBody = Type.Intersect([Type.Object({ userId: Type.String() }), Type.Object({ email: Type.Optional(Type.String()) })]);
// supertokens-node v24 sends only the token, at every CDI version it speaks; older SDKs also sent method 'token'.
// The reference reads only the token; a method other than 'token' is still refused here.
const ConsumeBody = Type.Intersect([Type.Object({ method: Type.Optional(Type.String()) }), Type.Object({ token: Type.String() })]);
const ResetBody = Type.Intersect([
  Type.Object({ method: Type.String() }),
  Type.Object({ token: Type.String() }),
  Type.Object({ newPassword: Type.String() }),
]);
const InvalidToken = Type.Object({ status: Type.Literal('RESET_PASSWORD_INVALID_TOKEN_ERROR') });
const TokenResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), token: Type.String() }),
  Type.Object({ status: Type.Literal('UNKNOWN_USER_ID_ERROR') }),
]);
const ConsumeResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), userId: Type.String(), email: Type.String() }),
  InvalidToken,
]);
const ResetResponse = Type.Union([Type.Object({ status: Type.Literal('OK'), userId: Type.String() }), InvalidToken]);

function assertTokenMethod(method: string): void {
  if (method !== 'token') throw coreError('PASSWORD_RESET_METHOD');
}

// What the SDK's forgot-password flow calls: make a token, spend it, then PUT /recipe/user with the new password.
const passwordReset: FastifyPluginAsync = async (app) => {
  defineRoute(app, {
    method: 'POST',
    url: '/recipe/user/password/reset/token',
    schema: { body: TokenBody, response: { 200: TokenResponse, 400: TextError } },
    scope: 'tenant',
    handle: async ({ body }) => app.services.passwordReset.createToken(body.userId, body.email),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/user/password/reset/token/consume',
    schema: { body: ConsumeBody, response: { 200: ConsumeResponse, 400: TextError } },
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
    schema: { body: ResetBody, response: { 200: ResetResponse, 400: TextError } },
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
