import { Type, type Static, type TOptional, type TString } from '@sinclair/typebox';

const ThirdPartyInfo = Type.Object({ id: Type.String(), userId: Type.String() });

const LoginMethod = Type.Object({
  tenantIds: Type.Optional(Type.Array(Type.String())),
  recipeUserId: Type.String(),
  verified: Type.Boolean(),
  timeJoined: Type.Number(),
  recipeId: Type.String(),
  email: Type.Optional(Type.String()),
  phoneNumber: Type.Optional(Type.String()),
  thirdParty: Type.Optional(ThirdPartyInfo),
  webauthn: Type.Optional(Type.Object({ credentialIds: Type.Array(Type.String()) })),
});

// Response schema of a user in every shape toUserObject emits; the serializer drops anything not listed here.
export const UserSchema = Type.Object({
  id: Type.String(),
  isPrimaryUser: Type.Optional(Type.Boolean()),
  tenantIds: Type.Optional(Type.Array(Type.String())),
  timeJoined: Type.Number(),
  emails: Type.Optional(Type.Array(Type.String())),
  phoneNumbers: Type.Optional(Type.Array(Type.String())),
  thirdParty: Type.Optional(Type.Union([Type.Array(ThirdPartyInfo), ThirdPartyInfo])),
  webauthn: Type.Optional(Type.Object({ credentialIds: Type.Array(Type.String()) })),
  loginMethods: Type.Optional(Type.Array(LoginMethod)),
  email: Type.Optional(Type.String()),
  phoneNumber: Type.Optional(Type.String()),
});
export type WireUser = Static<typeof UserSchema>;

export const StatusOnly = <S extends string>(status: S) => Type.Object({ status: Type.Literal(status) });

export const OkStatus = StatusOnly('OK');

/** A query string with one optional parameter: the route reports it missing itself (requiredQuery), in its own order. */
export const OptionalQuery = <N extends string>(name: N) =>
  Type.Object({ [name]: Type.Optional(Type.String()) } as Record<N, TOptional<TString>>);
