import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../http/route.js';
import { Type } from '@sinclair/typebox';
import { badInput, coreError, legacyUnavailable } from '../errors.js';

const Breaker = Type.Union([Type.Literal('closed'), Type.Literal('open'), Type.Literal('half-open'), Type.Null()]);
const SourceStatus = Type.Object({
  name: Type.String(),
  configured: Type.Boolean(),
  kind: Type.Union([Type.String(), Type.Null()]),
  pending: Type.Integer(),
  migrated: Type.Object({ signin: Type.Integer(), replaced: Type.Integer() }),
  lastMatchAt: Type.Union([Type.Integer(), Type.Null()]),
  deadline: Type.Union([Type.String(), Type.Null()]),
  breaker: Breaker,
  outcomes: Type.Record(Type.String(), Type.Integer()),
});
const StatusResponse = Type.Object({ status: Type.Literal('OK'), enabled: Type.Boolean(), sources: Type.Array(SourceStatus) });

const CanaryBody = Type.Intersect([
  Type.Object({ source: Type.String() }),
  Type.Object({ login: Type.String() }),
  Type.Object({ password: Type.String() }),
]);
const CanaryResponse = Type.Object({ status: Type.Literal('OK'), outcome: Type.String() });

const CANARY_INTERVAL_MS = 1000;

const lazyMigrationRoutes: FastifyPluginAsync = async (app) => {
  // Pending users per source, adoptions so far, answers by cause since start, breaker state and deadline.
  defineRoute(app, {
    method: 'GET',
    url: '/lazy-migration/status',
    schema: { response: { 200: StatusResponse } },
    scope: 'app',
    handle: async () => ({
      status: 'OK' as const,
      enabled: app.services.config.lazy_migration.enabled,
      sources: await app.services.lazyMigration.progress(),
    }),
  });

  // The canary: asks a source about one password and stores nothing. Off unless allow_canary; one call a second.
  let lastCanaryAt = 0;
  defineRoute(app, {
    method: 'POST',
    url: '/lazy-migration/verify',
    schema: { body: CanaryBody, response: { 200: CanaryResponse, 400: Type.String() } },
    scope: 'app',
    handle: async ({ body: { source, login, password } }) => {
      if (!app.services.config.lazy_migration.allowCanary) throw coreError('NOT_FOUND');
      const now = Date.now();
      if (now - lastCanaryAt < CANARY_INTERVAL_MS) throw legacyUnavailable(CANARY_INTERVAL_MS - (now - lastCanaryAt));
      lastCanaryAt = now;
      const outcome = await app.services.lazyMigration.check(source, login, password);
      if (!outcome) throw badInput(`Unknown lazy-migration source '${source}'`);
      return { status: 'OK' as const, outcome: outcome.kind };
    },
  });
};

export default lazyMigrationRoutes;
