import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../http/route.js';
import { StatusOnly, UserSchema } from '../http/schemas.js';
import { coreError, retryLater } from '../errors.js';
import { signedInBody } from '../users/user-object.js';

const ExchangeBody = Type.Object({ source: Type.String(), token: Type.String() });
const ExchangeResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), user: UserSchema, recipeUserId: Type.Optional(Type.String()) }),
  StatusOnly('INVALID_TOKEN_ERROR'),
  StatusOnly('TOKEN_ALREADY_USED_ERROR'),
  StatusOnly('UNKNOWN_USER_ERROR'),
  StatusOnly('SOURCE_CLOSED_ERROR'),
]);

const SourceStatus = Type.Object({
  name: Type.String(),
  configured: Type.Boolean(),
  kind: Type.Union([Type.String(), Type.Null()]),
  deadline: Type.Union([Type.String(), Type.Null()]),
  /** The last 30 days, UTC, days without any exchange or refusal left out. */
  days: Type.Array(
    Type.Object({
      day: Type.String(),
      bridged: Type.Integer(),
      users: Type.Integer(),
      refused: Type.Record(Type.String(), Type.Integer()),
    }),
  ),
});
const StatusResponse = Type.Object({ status: Type.Literal('OK'), sources: Type.Array(SourceStatus) });

const sessionBridgeRoutes: FastifyPluginAsync = async (app) => {
  // A token of the old provider, exchanged once for the imported user it names; the app then creates the session.
  defineRoute(app, {
    method: 'POST',
    url: '/session-bridge/exchange',
    schema: { body: ExchangeBody, response: { 200: ExchangeResponse, 400: Type.String(), 503: Type.String() } },
    scope: 'tenant',
    handle: async ({ body }, request) => {
      const result = await app.services.sessionBridge.exchange(request.tenantId, body.source, body.token);
      switch (result.status) {
        case 'OK':
          return signedInBody(result.signedIn, request.cdiVersion);
        case 'UNKNOWN_SOURCE':
          throw coreError('SESSION_BRIDGE_SOURCE_UNKNOWN', body.source);
        case 'UNAVAILABLE':
          throw retryLater('SESSION_BRIDGE_KEYS_UNAVAILABLE', result.retryAfterMs);
        default:
          return { status: result.status };
      }
    },
  });

  // Progress per source and day: tokens exchanged, distinct users, refusals by cause (summed over every instance).
  defineRoute(app, {
    method: 'GET',
    url: '/session-bridge/status',
    schema: { response: { 200: StatusResponse } },
    scope: 'app',
    handle: async () => ({ status: 'OK' as const, sources: await app.services.sessionBridge.progress() }),
  });
};

export default sessionBridgeRoutes;
