import { Type, type Static } from '@sinclair/typebox';
import { StatusOnly, UserSchema } from '../../http/schemas.js';

export const SignInUpBody = Type.Object({
  thirdPartyId: Type.String(),
  thirdPartyUserId: Type.String(),
  // A missing isVerified means false at every cdi-version (contract §7.1 deviation: the seed omits it).
  email: Type.Object({ id: Type.String(), isVerified: Type.Optional(Type.Boolean()) }),
});
export type SignInUpBody = Static<typeof SignInUpBody>;

export const SignInUpResponse = Type.Union([
  Type.Object({
    status: Type.Literal('OK'),
    createdNewUser: Type.Boolean(),
    user: UserSchema,
    recipeUserId: Type.Optional(Type.String()),
  }),
  // Account linking AL-10.2: the SDK compares `reason` with this exact text.
  Type.Object({ status: Type.Literal('EMAIL_CHANGE_NOT_ALLOWED_ERROR'), reason: Type.String() }),
]);

export const GetThirdPartyUserQuery = Type.Object({
  userId: Type.Optional(Type.String()),
  thirdPartyId: Type.Optional(Type.String()),
  thirdPartyUserId: Type.Optional(Type.String()),
});
export type GetThirdPartyUserQuery = Static<typeof GetThirdPartyUserQuery>;

export const GetThirdPartyUserResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), user: UserSchema }),
  StatusOnly('UNKNOWN_USER_ID_ERROR'),
  StatusOnly('UNKNOWN_THIRD_PARTY_USER_ERROR'),
]);

export const UsersByEmailQuery = Type.Object({ email: Type.String() });

export const UserListResponse = Type.Object({ status: Type.Literal('OK'), users: Type.Array(UserSchema) });
