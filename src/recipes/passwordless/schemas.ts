import { Type, type Static } from '@sinclair/typebox';
import { StatusOnly, UserSchema } from '../../http/schemas.js';

// Fields whose presence decides the form of a request before their type is checked (contract §5.3, §5.6) are
// `Unknown` here and checked in src/recipes/passwordless/routes/request-inputs.ts, so the messages come in the contract's order.

export const CreateCodeBody = Type.Object({
  email: Type.Optional(Type.String()),
  phoneNumber: Type.Optional(Type.String()),
  deviceId: Type.Optional(Type.String()),
  userInputCode: Type.Optional(Type.String()),
});
export type CreateCodeBody = Static<typeof CreateCodeBody>;

export const ConsumeCodeBody = Type.Object({
  preAuthSessionId: Type.String(),
  linkCode: Type.Optional(Type.Unknown()),
  deviceId: Type.Optional(Type.Unknown()),
  userInputCode: Type.Optional(Type.Unknown()),
});
export type ConsumeCodeBody = Static<typeof ConsumeCodeBody>;

export const ListCodesQuery = Type.Object({
  email: Type.Optional(Type.String()),
  phoneNumber: Type.Optional(Type.String()),
  deviceId: Type.Optional(Type.String()),
  preAuthSessionId: Type.Optional(Type.String()),
});
export type ListCodesQuery = Static<typeof ListCodesQuery>;

export const RemoveCodeBody = Type.Object({
  codeId: Type.Optional(Type.String()),
  // Ignored before cdi 5.0, whatever its type.
  preAuthSessionId: Type.Optional(Type.Unknown()),
});
export type RemoveCodeBody = Static<typeof RemoveCodeBody>;

export const RemoveCodesBody = Type.Object({
  email: Type.Optional(Type.String()),
  phoneNumber: Type.Optional(Type.String()),
});
export type RemoveCodesBody = Static<typeof RemoveCodesBody>;

// null is meaningful here only: it clears the field (contract §5.8).
const Clearable = Type.Optional(Type.Union([Type.String(), Type.Null()]));
export const UpdateUserBody = Type.Object({
  recipeUserId: Type.Optional(Type.String()),
  userId: Type.Optional(Type.String()),
  email: Clearable,
  phoneNumber: Clearable,
});
export type UpdateUserBody = Static<typeof UpdateUserBody>;

export const GetUserQuery = Type.Object({
  userId: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  phoneNumber: Type.Optional(Type.String()),
});
export type GetUserQuery = Static<typeof GetUserQuery>;

const RestartFlow = StatusOnly('RESTART_FLOW_ERROR');

export const CreateCodeResponse = Type.Union([
  Type.Object({
    status: Type.Literal('OK'),
    preAuthSessionId: Type.String(),
    codeId: Type.String(),
    deviceId: Type.String(),
    userInputCode: Type.String(),
    linkCode: Type.String(),
    timeCreated: Type.Number(),
    codeLifetime: Type.Number(),
  }),
  RestartFlow,
  StatusOnly('USER_INPUT_CODE_ALREADY_USED_ERROR'),
]);

export type CreateCodeResult = Static<typeof CreateCodeResponse>;

const ConsumedDevice = Type.Object({
  preAuthSessionId: Type.String(),
  failedCodeInputAttemptCount: Type.Number(),
  email: Type.Optional(Type.String()),
  phoneNumber: Type.Optional(Type.String()),
});
export type ConsumedDevice = Static<typeof ConsumedDevice>;

const CodeAttemptFailures = [
  RestartFlow,
  Type.Object({
    status: Type.Union([Type.Literal('INCORRECT_USER_INPUT_CODE_ERROR'), Type.Literal('EXPIRED_USER_INPUT_CODE_ERROR')]),
    failedCodeInputAttemptCount: Type.Number(),
    maximumCodeInputAttempts: Type.Number(),
  }),
];
export type CodeAttemptFailure = Static<(typeof CodeAttemptFailures)[number]>;

export const ConsumeCodeResponse = Type.Union([
  Type.Object({
    status: Type.Literal('OK'),
    createdNewUser: Type.Boolean(),
    user: UserSchema,
    recipeUserId: Type.Optional(Type.String()),
    consumedDevice: Type.Optional(ConsumedDevice),
  }),
  ...CodeAttemptFailures,
]);

export const CheckCodeResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), consumedDevice: ConsumedDevice }),
  ...CodeAttemptFailures,
]);
export type CheckResult = Static<typeof CheckCodeResponse>;

const DeviceView = Type.Object({
  ...ConsumedDevice.properties,
  codes: Type.Array(Type.Object({ codeId: Type.String(), timeCreated: Type.Number(), codeLifetime: Type.Number() })),
});
export type DeviceView = Static<typeof DeviceView>;

export const ListCodesResponse = Type.Object({ status: Type.Literal('OK'), devices: Type.Array(DeviceView) });

export const UpdateUserResponse = Type.Union([
  ...['OK', 'UNKNOWN_USER_ID_ERROR', 'EMAIL_ALREADY_EXISTS_ERROR', 'PHONE_NUMBER_ALREADY_EXISTS_ERROR'].map(StatusOnly),
  ...['EMAIL_CHANGE_NOT_ALLOWED_ERROR', 'PHONE_NUMBER_CHANGE_NOT_ALLOWED_ERROR'].map((status) =>
    Type.Object({ status: Type.Literal(status), reason: Type.String() }),
  ),
]);

export const GetUserResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), user: UserSchema }),
  ...['UNKNOWN_USER_ID_ERROR', 'UNKNOWN_EMAIL_ERROR', 'UNKNOWN_PHONE_NUMBER_ERROR'].map(StatusOnly),
]);
