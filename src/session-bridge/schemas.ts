import { Type } from '@sinclair/typebox';
import { StatusOnly, UserSchema } from '../http/schemas.js';

export const ExchangeBody = Type.Object({ source: Type.String(), token: Type.String() });
export const ExchangeResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), user: UserSchema, recipeUserId: Type.Optional(Type.String()) }),
  StatusOnly('INVALID_TOKEN_ERROR'),
  StatusOnly('TOKEN_ALREADY_USED_ERROR'),
  StatusOnly('UNKNOWN_USER_ERROR'),
  StatusOnly('SOURCE_CLOSED_ERROR'),
]);

export const SourceStatus = Type.Object({
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
export const StatusResponse = Type.Object({ status: Type.Literal('OK'), sources: Type.Array(SourceStatus) });
