import { Type, type Static } from '@sinclair/typebox';
import { StatusOnly, UserSchema } from '../../http/schemas.js';

// One object per field, checked in order by allOf, so a bad body names its first bad field in the contract's order.
const AlgorithmIds = Type.Array(Type.Integer(), { maxItems: 32 });

const RelyingPartyName = Type.Object({ relyingPartyName: Type.String() });
const RelyingPartyId = Type.Object({ relyingPartyId: Type.String() });
const Origin = Type.Object({ origin: Type.String() });
const Timeout = Type.Object({ timeout: Type.Optional(Type.Integer()) });
const UserVerification = Type.Object({ userVerification: Type.Optional(Type.String()) });
const UserPresence = Type.Object({ userPresence: Type.Optional(Type.Boolean()) });

export const RegisterOptionsBody = Type.Intersect([
  Type.Object({ email: Type.Optional(Type.String()) }),
  Type.Object({ recoverAccountToken: Type.Optional(Type.String()) }),
  Type.Object({ displayName: Type.Optional(Type.String()) }),
  RelyingPartyName,
  RelyingPartyId,
  Origin,
  Timeout,
  UserVerification,
  UserPresence,
  Type.Object({ attestation: Type.Optional(Type.String()) }),
  Type.Object({ residentKey: Type.Optional(Type.String()) }),
  // The SDK spells it supportedAlgorithmIds, the reference reads supportedAlgorithmIDs: both are read.
  Type.Object({ supportedAlgorithmIds: Type.Optional(AlgorithmIds) }),
  Type.Object({ supportedAlgorithmIDs: Type.Optional(AlgorithmIds) }),
]);
export type RegisterOptionsBody = Static<typeof RegisterOptionsBody>;

export const SignInOptionsBody = Type.Intersect([RelyingPartyName, RelyingPartyId, Origin, Timeout, UserVerification, UserPresence]);
export type SignInOptionsBody = Static<typeof SignInOptionsBody>;

export const OptionsIdQuery = Type.Object({ webauthnGeneratedOptionsId: Type.Optional(Type.String()) });

export const CeremonyBody = Type.Intersect([
  Type.Object({ webauthnGeneratedOptionsId: Type.String() }),
  Type.Object({ credential: Type.Object({}, { additionalProperties: true }) }),
]);
export type CeremonyBody = Static<typeof CeremonyBody>;

export const RegisterCredentialBody = Type.Intersect([
  Type.Object({ recipeUserId: Type.String() }),
  Type.Object({ webauthnGeneratedOptionsId: Type.String() }),
  Type.Object({ credential: Type.Object({}, { additionalProperties: true }) }),
]);
export type RegisterCredentialBody = Static<typeof RegisterCredentialBody>;

export const CredentialQuery = Type.Object({
  webauthnCredentialId: Type.Optional(Type.String()),
  recipeUserId: Type.Optional(Type.String()),
});

export const RecoverTokenBody = Type.Intersect([Type.Object({ userId: Type.String() }), Type.Object({ email: Type.String() })]);
export const TokenBody = Type.Object({ token: Type.String() });
export const TokenQuery = Type.Object({ token: Type.Optional(Type.String()) });
export const UpdateEmailBody = Type.Intersect([Type.Object({ recipeUserId: Type.String() }), Type.Object({ email: Type.String() })]);

export const TextError = Type.String();

const Reasoned = <S extends string>(status: S) => Type.Object({ status: Type.Literal(status), reason: Type.String() });
const InvalidOptions = Reasoned('INVALID_OPTIONS_ERROR');
const CeremonyRefusals = [
  StatusOnly('OPTIONS_NOT_FOUND_ERROR'),
  InvalidOptions,
  Reasoned('INVALID_CREDENTIALS_ERROR'),
  Reasoned('INVALID_AUTHENTICATOR_ERROR'),
];

export const RegisterOptionsResponse = Type.Union([
  Type.Object({
    status: Type.Literal('OK'),
    webauthnGeneratedOptionsId: Type.String(),
    rp: Type.Object({ id: Type.String(), name: Type.String() }),
    user: Type.Object({ id: Type.String(), name: Type.String(), displayName: Type.String() }),
    email: Type.String(),
    timeout: Type.Number(),
    challenge: Type.String(),
    attestation: Type.String(),
    pubKeyCredParams: Type.Array(Type.Object({ alg: Type.Integer(), type: Type.String() })),
    excludeCredentials: Type.Array(Type.Object({ id: Type.String(), type: Type.String(), transports: Type.Array(Type.String()) })),
    authenticatorSelection: Type.Object({
      requireResidentKey: Type.Boolean(),
      residentKey: Type.String(),
      userVerification: Type.String(),
    }),
    createdAt: Type.Number(),
    expiresAt: Type.Number(),
  }),
  Type.Object({ status: Type.Literal('INVALID_EMAIL_ERROR'), err: Type.String() }),
  InvalidOptions,
  StatusOnly('RECOVER_ACCOUNT_TOKEN_INVALID_ERROR'),
]);

export const SignInOptionsResponse = Type.Union([
  Type.Object({
    status: Type.Literal('OK'),
    webauthnGeneratedOptionsId: Type.String(),
    relyingPartyId: Type.String(),
    challenge: Type.String(),
    timeout: Type.Number(),
    userVerification: Type.String(),
    userPresence: Type.Boolean(),
    createdAt: Type.Number(),
    expiresAt: Type.Number(),
  }),
  InvalidOptions,
]);

export const StoredOptionsResponse = Type.Union([
  Type.Object({
    status: Type.Literal('OK'),
    webauthnGeneratedOptionsId: Type.String(),
    relyingPartyId: Type.String(),
    relyingPartyName: Type.String(),
    challenge: Type.String(),
    timeout: Type.Number(),
    origin: Type.String(),
    email: Type.Optional(Type.String()),
    createdAt: Type.Number(),
    expiresAt: Type.Number(),
    userVerification: Type.String(),
    userPresence: Type.Boolean(),
  }),
  StatusOnly('OPTIONS_NOT_FOUND_ERROR'),
]);

export const RemoveOptionsResponse = Type.Union([StatusOnly('OK'), StatusOnly('OPTIONS_NOT_FOUND_ERROR')]);

export const SignUpResponse = Type.Union([
  Type.Object({
    status: Type.Literal('OK'),
    user: UserSchema,
    webauthnCredentialId: Type.String(),
    relyingPartyId: Type.String(),
    relyingPartyName: Type.String(),
    recipeUserId: Type.String(),
  }),
  StatusOnly('EMAIL_ALREADY_EXISTS_ERROR'),
  ...CeremonyRefusals,
]);

export const SignInResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), user: UserSchema, recipeUserId: Type.String() }),
  StatusOnly('CREDENTIAL_NOT_FOUND_ERROR'),
  ...CeremonyRefusals,
]);

export const RegisterCredentialResponse = Type.Union([
  Type.Object({
    status: Type.Literal('OK'),
    webauthnCredentialId: Type.String(),
    recipeUserId: Type.String(),
    email: Type.String(),
    relyingPartyId: Type.String(),
    relyingPartyName: Type.String(),
  }),
  StatusOnly('CREDENTIAL_ALREADY_EXISTS_ERROR'),
  StatusOnly('UNKNOWN_USER_ID_ERROR'),
  ...CeremonyRefusals,
]);

const CredentialItem = {
  webauthnCredentialId: Type.String(),
  recipeUserId: Type.String(),
  relyingPartyId: Type.String(),
  createdAt: Type.Number(),
};

export const CredentialResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), ...CredentialItem, updatedAt: Type.Number() }),
  StatusOnly('CREDENTIAL_NOT_FOUND_ERROR'),
]);
export const CredentialListResponse = Type.Object({ status: Type.Literal('OK'), credentials: Type.Array(Type.Object(CredentialItem)) });
export const RemoveCredentialResponse = Type.Union([StatusOnly('OK'), StatusOnly('CREDENTIAL_NOT_FOUND_ERROR')]);

export const RecoverTokenResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), token: Type.String() }),
  StatusOnly('UNKNOWN_USER_ID_ERROR'),
]);
export const ConsumeTokenResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), userId: Type.String(), email: Type.String() }),
  StatusOnly('RECOVER_ACCOUNT_TOKEN_INVALID_ERROR'),
]);
export const RecoverUserResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), user: UserSchema, email: Type.String(), recipeUserId: Type.Optional(Type.String()) }),
  StatusOnly('RECOVER_ACCOUNT_TOKEN_INVALID_ERROR'),
]);
export const UpdateEmailResponse = Type.Union([
  StatusOnly('OK'),
  StatusOnly('UNKNOWN_USER_ID_ERROR'),
  StatusOnly('EMAIL_ALREADY_EXISTS_ERROR'),
  Type.Object({ status: Type.Literal('EMAIL_CHANGE_NOT_ALLOWED_ERROR'), reason: Type.String() }),
]);
