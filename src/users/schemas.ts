import { Type, type Static } from '@sinclair/typebox';
import { OkStatus, StatusOnly, UserSchema } from '../http/schemas.js';

export const GetUserByIdQuery = Type.Object({ userId: Type.String() });

export const GetUserByIdResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), user: UserSchema }),
  StatusOnly('UNKNOWN_USER_ID_ERROR'),
]);

export const UsersByAccountInfoQuery = Type.Object({
  email: Type.Optional(Type.String()),
  phoneNumber: Type.Optional(Type.String()),
  thirdPartyId: Type.Optional(Type.String()),
  thirdPartyUserId: Type.Optional(Type.String()),
  webauthnCredentialId: Type.Optional(Type.String()),
  doUnionOfAccountInfo: Type.String(),
});
export type UsersByAccountInfoQuery = Static<typeof UsersByAccountInfoQuery>;

export const UsersListResponse = Type.Object({ status: Type.Literal('OK'), users: Type.Array(UserSchema) });

export const UsersCountQuery = Type.Object({
  includeRecipeIds: Type.Optional(Type.String()),
  includeAllTenants: Type.Optional(Type.String()),
  allowApproximate: Type.Optional(Type.String()),
});

export const UsersCountResponse = Type.Object({
  status: Type.Literal('OK'),
  count: Type.Number(),
  approximate: Type.Optional(Type.Boolean()),
  asOf: Type.Optional(Type.Number()),
});

// limit stays a string here: "must be an int" has its own message (integerQuery), which ajv cannot produce.
export const UsersPageQuery = Type.Object({
  limit: Type.Optional(Type.String()),
  timeJoinedOrder: Type.Optional(Type.String()),
  paginationToken: Type.Optional(Type.String()),
  includeRecipeIds: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  phone: Type.Optional(Type.String()),
  provider: Type.Optional(Type.String()),
});
export type UsersPageQuery = Static<typeof UsersPageQuery>;

// cdi >= 4.0 lists user objects; older versions wrap each one as { recipeId, user } (contract §8.4, §11). One
// object schema covers both: an anyOf would make the serializer validate each of up to 500 items to pick a branch,
// which cost more than the database query.
const UsersPageItem = Type.Object({
  ...Type.Partial(UserSchema).properties,
  recipeId: Type.Optional(Type.String()),
  user: Type.Optional(UserSchema),
});

export const UsersPageResponse = Type.Object({
  status: Type.Literal('OK'),
  users: Type.Array(UsersPageItem),
  nextPaginationToken: Type.Optional(Type.String()),
});

export const RemoveUserBody = Type.Object({
  userId: Type.String(),
  removeAllLinkedAccounts: Type.Optional(Type.Boolean()),
});

export const RemoveUserResponse = OkStatus;
