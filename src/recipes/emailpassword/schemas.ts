import { Type, type Static } from '@sinclair/typebox';
import { StatusOnly, UserSchema } from '../../http/schemas.js';

// ajv reports a missing required property before any property's wrong type, while the contract names the first
// bad field in the order it lists them. One object per field, checked in order by allOf (Intersect), keeps that
// order: `{"email": 1}` is about `email`, not about the missing `passwordHash`.

export const ImportPasswordHashBody = Type.Intersect([
  Type.Object({ email: Type.String() }),
  Type.Object({ passwordHash: Type.String() }),
  Type.Object({ hashingAlgorithm: Type.Optional(Type.String()) }),
]);
export type ImportPasswordHashBody = Static<typeof ImportPasswordHashBody>;

export const CredentialsBody = Type.Intersect([Type.Object({ email: Type.String() }), Type.Object({ password: Type.String() })]);
export type CredentialsBody = Static<typeof CredentialsBody>;

export const GetUserQuery = Type.Object({ userId: Type.Optional(Type.String()), email: Type.Optional(Type.String()) });
export type GetUserQuery = Static<typeof GetUserQuery>;

// `userId` is only read when `recipeUserId` is absent, so its type is checked by the route, not here.
export const UpdateUserBody = Type.Object({
  recipeUserId: Type.Optional(Type.String()),
  userId: Type.Optional(Type.Unknown()),
  email: Type.Optional(Type.String()),
  password: Type.Optional(Type.String()),
});
export type UpdateUserBody = Static<typeof UpdateUserBody>;

// Plain-text error bodies (400 bad input, 500 missing signer key or internal error).
export const TextError = Type.String();

const UserOk = Type.Object({ status: Type.Literal('OK'), user: UserSchema });

export const ImportPasswordHashResponse = Type.Object({
  status: Type.Literal('OK'),
  user: UserSchema,
  didUserAlreadyExist: Type.Boolean(),
});

// recipeUserId is absent below cdi-version 4.0.
const SignedIn = Type.Object({ status: Type.Literal('OK'), user: UserSchema, recipeUserId: Type.Optional(Type.String()) });

export const SignInResponse = Type.Union([SignedIn, StatusOnly('WRONG_CREDENTIALS_ERROR')]);
export const SignUpResponse = Type.Union([SignedIn, StatusOnly('EMAIL_ALREADY_EXISTS_ERROR')]);
export const GetUserResponse = Type.Union([UserOk, StatusOnly('UNKNOWN_USER_ID_ERROR'), StatusOnly('UNKNOWN_EMAIL_ERROR')]);
export const UpdateUserResponse = Type.Union([
  StatusOnly('OK'),
  StatusOnly('UNKNOWN_USER_ID_ERROR'),
  StatusOnly('EMAIL_ALREADY_EXISTS_ERROR'),
  // Account linking AL-10.3.
  Type.Object({ status: Type.Literal('EMAIL_CHANGE_NOT_ALLOWED_ERROR'), reason: Type.String() }),
]);

// Password reset (routes/password-reset.ts).
export const ResetTokenBody = Type.Intersect([
  Type.Object({ userId: Type.String() }),
  Type.Object({ email: Type.Optional(Type.String()) }),
]);
// supertokens-node v24 sends only the token, at every CDI version it speaks; older SDKs also sent method 'token'.
// The reference reads only the token; a method other than 'token' is still refused here.
export const ConsumeResetTokenBody = Type.Intersect([
  Type.Object({ method: Type.Optional(Type.String()) }),
  Type.Object({ token: Type.String() }),
]);
export const ResetPasswordBody = Type.Intersect([
  Type.Object({ method: Type.String() }),
  Type.Object({ token: Type.String() }),
  Type.Object({ newPassword: Type.String() }),
]);
export const ResetTokenInvalid = Type.Object({ status: Type.Literal('RESET_PASSWORD_INVALID_TOKEN_ERROR') });
export const ResetTokenResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), token: Type.String() }),
  Type.Object({ status: Type.Literal('UNKNOWN_USER_ID_ERROR') }),
]);
export const ConsumeResetTokenResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), userId: Type.String(), email: Type.String() }),
  ResetTokenInvalid,
]);
export const ResetPasswordResponse = Type.Union([Type.Object({ status: Type.Literal('OK'), userId: Type.String() }), ResetTokenInvalid]);
