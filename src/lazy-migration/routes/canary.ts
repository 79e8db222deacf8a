import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/route.js';
import { coreError, legacyUnavailable } from '../../errors.js';
import { CanaryBody, CanaryResponse } from '../schemas.js';

const CANARY_INTERVAL_MS = 1000;

const canary: FastifyPluginAsync = async (app) => {
  // The canary: asks a source about one password and stores nothing. Off unless allow_canary; one call a second.
  let lastCanaryAt = 0;
  defineRoute(app, {
    method: 'POST',
    url: '/lazy-migration/verify',
    schema: { body: CanaryBody, response: { 200: CanaryResponse, 400: Type.String(), 503: Type.String() } },
    scope: 'app',
    handle: async ({ body: { source, login, password } }) => {
      if (!app.services.config.lazy_migration.allowCanary) throw coreError('NOT_FOUND');
      const now = Date.now();
      if (now - lastCanaryAt < CANARY_INTERVAL_MS) throw legacyUnavailable(CANARY_INTERVAL_MS - (now - lastCanaryAt));
      lastCanaryAt = now;
      const outcome = await app.services.lazyMigration.check(source, login, password);
      if (!outcome) throw coreError('LAZY_MIGRATION_SOURCE_UNKNOWN', source);
      return { status: 'OK' as const, outcome: outcome.kind };
    },
  });
};

export default canary;
