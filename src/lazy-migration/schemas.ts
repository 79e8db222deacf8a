import { Type } from '@sinclair/typebox';

export const Breaker = Type.Union([Type.Literal('closed'), Type.Literal('open'), Type.Literal('half-open'), Type.Null()]);
export const SourceStatus = Type.Object({
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
export const StatusResponse = Type.Object({ status: Type.Literal('OK'), enabled: Type.Boolean(), sources: Type.Array(SourceStatus) });

export const CanaryBody = Type.Intersect([
  Type.Object({ source: Type.String() }),
  Type.Object({ login: Type.String() }),
  Type.Object({ password: Type.String() }),
]);
export const CanaryResponse = Type.Object({ status: Type.Literal('OK'), outcome: Type.String() });

export const PendingQuery = Type.Object({
  source: Type.String(),
  limit: Type.Optional(Type.String()),
  paginationToken: Type.Optional(Type.String()),
});
export const PendingUser = Type.Object({
  userId: Type.String(),
  externalUserId: Type.Union([Type.String(), Type.Null()]),
  email: Type.String(),
  legacyLogin: Type.Union([Type.String(), Type.Null()]),
  legacyUserId: Type.Union([Type.String(), Type.Null()]),
  timeJoined: Type.Integer(),
});
export const PendingResponse = Type.Object({
  status: Type.Literal('OK'),
  users: Type.Array(PendingUser),
  nextPaginationToken: Type.Optional(Type.String()),
});

export const BreakerCloseBody = Type.Object({ source: Type.String() });
export const BreakerCloseResponse = Type.Object({
  status: Type.Literal('OK'),
  previous: Type.Union([Type.Literal('closed'), Type.Literal('open'), Type.Literal('half-open')]),
});
