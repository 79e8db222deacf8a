import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../http/route.js';
import { Type } from '@sinclair/typebox';
import { coreError, legacyUnavailable } from '../errors.js';

const Breaker = Type.Union([Type.Literal('closed'), Type.Literal('open'), Type.Literal('half-open'), Type.Null()]);
const SourceStatus = Type.Object({
  name: Type.String(),
  configured: Type.Boolean(),
  kind: Type.Union([Type.String(), Type.Null()]),
  pending: Type.Integer(),
  migrated: Type.Object({ signin: Type.Integer(), replaced: Type.Integer() }),
  lastMatchAt: Type.Union([Type.Integer(), Type.Null()]),
  /** The last 30 days, UTC. */
  migratedPerDay: Type.Array(Type.Object({ day: Type.String(), signin: Type.Integer(), replaced: Type.Integer() })),
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

const PendingQuery = Type.Object({
  source: Type.String(),
  limit: Type.Optional(Type.String()),
  paginationToken: Type.Optional(Type.String()),
});
const PendingUser = Type.Object({
  userId: Type.String(),
  externalUserId: Type.Union([Type.String(), Type.Null()]),
  email: Type.String(),
  legacyLogin: Type.Union([Type.String(), Type.Null()]),
  legacyUserId: Type.Union([Type.String(), Type.Null()]),
  timeJoined: Type.Integer(),
});
const PendingResponse = Type.Object({
  status: Type.Literal('OK'),
  users: Type.Array(PendingUser),
  nextPaginationToken: Type.Optional(Type.String()),
});

const BreakerCloseBody = Type.Object({ source: Type.String() });
const BreakerCloseResponse = Type.Object({
  status: Type.Literal('OK'),
  previous: Type.Union([Type.Literal('closed'), Type.Literal('open'), Type.Literal('half-open')]),
});

const CANARY_INTERVAL_MS = 1000;
const MAX_PENDING_PAGE = 1000;

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

  // The reset-campaign list: a source's pending users, a page at a time.
  defineRoute(app, {
    method: 'GET',
    url: '/lazy-migration/pending',
    schema: { querystring: PendingQuery, response: { 200: PendingResponse, 400: Type.String() } },
    parse: ({ query }) => {
      const limit = query.limit === undefined ? 500 : Number(query.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PENDING_PAGE) {
        throw coreError('PENDING_LIMIT_OUT_OF_RANGE', MAX_PENDING_PAGE);
      }
      let after: string | undefined;
      if (query.paginationToken !== undefined) {
        after = Buffer.from(query.paginationToken, 'base64url').toString('utf8');
        if (after === '' || Buffer.from(after, 'utf8').toString('base64url') !== query.paginationToken)
          throw coreError('INVALID_PAGINATION_TOKEN');
      }
      return { source: query.source, limit, after };
    },
    scope: 'app',
    handle: async ({ source, limit, after }) => {
      const { users, next } = await app.services.lazyMigration.pending(source, limit, after);
      return {
        status: 'OK' as const,
        users,
        ...(next !== undefined && { nextPaginationToken: Buffer.from(next, 'utf8').toString('base64url') }),
      };
    },
  });

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

export default lazyMigrationRoutes;
