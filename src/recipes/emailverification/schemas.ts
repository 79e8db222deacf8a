import { Type, type Static } from '@sinclair/typebox';
import { StatusOnly } from '../../http/schemas.js';

// One object per field, checked in order (see recipes/emailpassword/schemas.ts): the first bad field is named.
export const UserEmailBody = Type.Intersect([Type.Object({ userId: Type.String() }), Type.Object({ email: Type.String() })]);
export const UserEmailQuery = Type.Object({ userId: Type.String(), email: Type.String() });
export const VerifyEmailBody = Type.Intersect([Type.Object({ method: Type.String() }), Type.Object({ token: Type.String() })]);

export const CreateTokenResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), token: Type.String() }),
  StatusOnly('EMAIL_ALREADY_VERIFIED_ERROR'),
]);
export type CreateVerificationTokenResult = Static<typeof CreateTokenResponse>;
export const VerifyEmailResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), userId: Type.String(), email: Type.String() }),
  StatusOnly('EMAIL_VERIFICATION_INVALID_TOKEN_ERROR'),
]);
export type VerifyEmailResult = Static<typeof VerifyEmailResponse>;
export const IsVerifiedResponse = Type.Object({ status: Type.Literal('OK'), isVerified: Type.Boolean() });
// Plain-text 400 bodies.
export const TextError = Type.String();
