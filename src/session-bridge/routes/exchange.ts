import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/route.js';
import { coreError, retryLater } from '../../errors.js';
import { signedInBody } from '../../users/user-object.js';
import { ExchangeBody, ExchangeResponse } from '../schemas.js';

const exchange: FastifyPluginAsync = async (app) => {
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
};

export default exchange;
