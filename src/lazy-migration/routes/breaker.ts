import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/route.js';
import { coreError } from '../../errors.js';
import { BreakerCloseBody, BreakerCloseResponse } from '../schemas.js';

const breaker: FastifyPluginAsync = async (app) => {
  // The operator's way out of an open breaker (a provider that is back, a limit raised): calls resume at once. The
  // breaker lives in each instance, so each instance is closed by its own call.
  defineRoute(app, {
    method: 'POST',
    url: '/lazy-migration/breaker/close',
    schema: { body: BreakerCloseBody, response: { 200: BreakerCloseResponse, 400: Type.String() } },
    scope: 'app',
    handle: async ({ body: { source } }) => {
      const previous = app.services.lazyMigration.closeBreaker(source);
      if (previous === undefined) throw coreError('LAZY_MIGRATION_SOURCE_UNKNOWN', source);
      return { status: 'OK' as const, previous };
    },
  });
};

export default breaker;
