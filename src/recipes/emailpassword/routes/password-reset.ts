import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { badInput } from '../../../errors.js';
import { TextError } from '../schemas.js';

const TokenBody = Type.Intersect([Type.Object({ userId: Type.String() }), Type.Object({ email: Type.Optional(Type.String()) })]);
const ConsumeBody = Type.Intersect([Type.Object({ method: Type.String() }), Type.Object({ token: Type.String() })]);
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
const ConsumeResponse = Type.Union([Type.Object({ status: Type.Literal('OK'), userId: Type.String(), email: Type.String() }), InvalidToken]);
const ResetResponse = Type.Union([Type.Object({ status: Type.Literal('OK'), userId: Type.String() }), InvalidToken]);

function assertTokenMethod(method: string): void {
  if (method !== 'token') throw badInput("Unsupported method for password reset: 'method' must be 'token'");
}

// What the SDK's forgot-password flow calls: make a token, spend it, then PUT /recipe/user with the new password.
const passwordReset: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/recipe/user/password/reset/token', {
    config: { scope: 'tenant' },
    schema: { body: TokenBody, response: { 200: TokenResponse, 400: TextError } },
    handler: async (request) => app.services.passwordReset.createToken(request.body.userId, request.body.email),
  });

  app.post('/recipe/user/password/reset/token/consume', {
    config: { scope: 'tenant' },
    schema: { body: ConsumeBody, response: { 200: ConsumeResponse, 400: TextError } },
    handler: async (request) => {
      assertTokenMethod(request.body.method);
      return app.services.passwordReset.consumeToken(request.body.token);
    },
  });

  app.post('/recipe/user/password/reset', {
    config: { scope: 'tenant' },
    schema: { body: ResetBody, response: { 200: ResetResponse, 400: TextError } },
    handler: async (request) => {
      assertTokenMethod(request.body.method);
      if (request.body.newPassword === '') throw badInput('Password cannot be an empty string');
      return app.services.passwordReset.resetPassword(request.body.token, request.body.newPassword);
    },
  });
};

export default passwordReset;
