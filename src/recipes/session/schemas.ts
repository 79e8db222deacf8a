import { Type, type Static, type TProperties } from '@sinclair/typebox';
import { OkStatus } from '../../http/schemas.js';

// One object per field, checked in the contract's order (see recipes/emailpassword/schemas.ts): the first bad field
// is named. A field the contract checks after the app/tenant check is `Unknown` here and checked by the route.
const AnyObject = Type.Object({}, { additionalProperties: true });
const field = <T extends TProperties>(properties: T) => Type.Object(properties);
const Later = Type.Optional(Type.Unknown());

export const CreateSessionBody = Type.Intersect([
  field({ userId: Type.String() }),
  field({ enableAntiCsrf: Type.Boolean() }),
  field({ userDataInJWT: AnyObject }),
  field({ userDataInDatabase: AnyObject }),
  field({ accessTokenValidity: Later }),
  field({ useDynamicSigningKey: Later }),
]);

export const VerifySessionBody = Type.Intersect([
  field({ accessToken: Type.String() }),
  field({ antiCsrfToken: Type.Optional(Type.String()) }),
  field({ doAntiCsrfCheck: Type.Boolean() }),
  field({ enableAntiCsrf: Type.Boolean() }),
  field({ checkDatabase: Later }),
]);

export const RefreshSessionBody = Type.Intersect([
  field({ refreshToken: Type.String() }),
  field({ antiCsrfToken: Type.Optional(Type.String()) }),
  field({ enableAntiCsrf: Type.Boolean() }),
  field({ useDynamicSigningKey: Later }),
  field({ accessTokenValidity: Later }),
]);

export const RegenerateBody = Type.Intersect([field({ accessToken: Type.String() }), field({ userDataInJWT: Type.Optional(AnyObject) })]);

export const RemoveSessionsBody = Type.Intersect([
  field({ userId: Type.Optional(Type.String()) }),
  field({ sessionHandles: Type.Optional(Type.Array(Type.String())) }),
  field({ revokeAcrossAllTenants: Type.Optional(Type.Boolean()) }),
  field({ revokeSessionsForLinkedAccounts: Type.Optional(Type.Boolean()) }),
]);

export const SessionHandleQuery = Type.Object({ sessionHandle: Type.String() });
export const UserSessionsQuery = Type.Object({
  userId: Type.String(),
  fetchSessionsForAllLinkedAccounts: Type.Optional(Type.String()),
  fetchAcrossAllTenants: Type.Optional(Type.String()),
});

export const SessionDataBody = Type.Intersect([field({ sessionHandle: Type.String() }), field({ userDataInDatabase: AnyObject })]);
export const JwtDataBody = Type.Intersect([field({ sessionHandle: Type.String() }), field({ userDataInJWT: AnyObject })]);

// Responses: key order is the reference's (S-4): session, accessToken, refreshToken, antiCsrfToken,
// payloadUpdateAvailable, status. tenantId is left out below cdi 3.0 and recipeUserId below 4.0.
export const SessionObject = Type.Object({
  handle: Type.String(),
  userId: Type.String(),
  recipeUserId: Type.Optional(Type.String()),
  userDataInJWT: AnyObject,
  tenantId: Type.Optional(Type.String()),
});
export type WireSession = Static<typeof SessionObject>;
export const TokenInfo = Type.Object({ token: Type.String(), expiry: Type.Number(), createdTime: Type.Number() });
export type WireToken = Static<typeof TokenInfo>;

const WithMessage = <S extends string>(status: S) => Type.Object({ status: Type.Literal(status), message: Type.String() });
export const Unauthorised = WithMessage('UNAUTHORISED');
export const TryRefreshToken = WithMessage('TRY_REFRESH_TOKEN');
const ReuseSubtype = Type.Optional(
  Type.Union([Type.Literal('RECENT_PREV'), Type.Literal('ORPHANED_BRANCH'), Type.Literal('STALE_LINEAGE')]),
);

export const CreateSessionResponse = Type.Object({
  session: SessionObject,
  accessToken: TokenInfo,
  refreshToken: TokenInfo,
  antiCsrfToken: Type.Optional(Type.String()),
  status: Type.Literal('OK'),
});

export const VerifySessionResponse = Type.Union([
  Type.Object({
    session: SessionObject,
    accessToken: Type.Optional(TokenInfo),
    payloadUpdateAvailable: Type.Optional(Type.Boolean()),
    status: Type.Literal('OK'),
  }),
  TryRefreshToken,
  Unauthorised,
]);
export type VerifySessionResult = Static<typeof VerifySessionResponse>;

export const RefreshSessionResponse = Type.Union([
  CreateSessionResponse,
  Type.Object({
    status: Type.Literal('TOKEN_THEFT_DETECTED'),
    session: Type.Object({ handle: Type.String(), userId: Type.String(), recipeUserId: Type.Optional(Type.String()) }),
    recentTokenReuseSubtype: ReuseSubtype,
  }),
  Type.Object({ status: Type.Literal('UNAUTHORISED'), message: Type.String(), recentTokenReuseSubtype: ReuseSubtype }),
]);
export type RefreshSessionResult = Static<typeof RefreshSessionResponse>;

export const RegenerateResponse = Type.Union([
  Type.Object({ session: SessionObject, accessToken: Type.Optional(TokenInfo), status: Type.Literal('OK') }),
  Unauthorised,
]);
export type RegenerateResult = Static<typeof RegenerateResponse>;

export const SessionInfoResponse = Type.Union([
  Type.Object({
    sessionHandle: Type.String(),
    userId: Type.String(),
    recipeUserId: Type.Optional(Type.String()),
    userDataInDatabase: AnyObject,
    expiry: Type.Number(),
    userDataInJWT: AnyObject,
    timeCreated: Type.Number(),
    status: Type.Literal('OK'),
    tenantId: Type.Optional(Type.String()),
  }),
  Unauthorised,
]);
export type SessionInfoResult = Static<typeof SessionInfoResponse>;

export const RemoveSessionsResponse = Type.Object({ status: Type.Literal('OK'), sessionHandlesRevoked: Type.Array(Type.String()) });
export const UserSessionsResponse = Type.Object({ status: Type.Literal('OK'), sessionHandles: Type.Array(Type.String()) });
export const UpdateResponse = Type.Union([OkStatus, Unauthorised]);
export const SessionDataResponse = Type.Union([Type.Object({ status: Type.Literal('OK'), userDataInDatabase: AnyObject }), Unauthorised]);
export const JwtDataResponse = Type.Union([Type.Object({ status: Type.Literal('OK'), userDataInJWT: AnyObject }), Unauthorised]);
export const TextError = Type.String();
