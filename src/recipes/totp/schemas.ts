import { Type } from '@sinclair/typebox';
import { StatusOnly } from '../../http/schemas.js';
import { coreError } from '../../errors.js';

// JSON numbers that are int32 integers (M-2.4: "30", 1.7 and 2^31 are refused, unlike the reference).
export const Int32 = Type.Integer({ minimum: -2147483648, maximum: 2147483647 });
export const MAX_SKEW = 10;
export const MAX_PERIOD = 3600;

// One object per field, checked in order (see recipes/emailpassword/schemas.ts): the first bad field is named.
const field = <K extends string, T extends Parameters<typeof Type.Object>[0][string]>(name: K, schema: T) =>
  Type.Object({ [name]: schema } as { [P in K]: T });
export const CreateDeviceBody = Type.Intersect([
  field('userId', Type.String()),
  field('deviceName', Type.Optional(Type.String())),
  field('skew', Int32),
  field('period', Int32),
]);
export const ImportDeviceBody = Type.Intersect([
  field('userId', Type.String()),
  field('deviceName', Type.Optional(Type.String())),
  field('skew', Int32),
  field('period', Int32),
  field('secretKey', Type.String()),
  field('secretEncoding', Type.Optional(Type.String())),
  field('algorithm', Type.Optional(Type.String())),
  field('digits', Type.Optional(Int32)),
  field('lastUsedTimeStep', Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }))),
]);
export const RenameDeviceBody = Type.Intersect([
  field('userId', Type.String()),
  field('existingDeviceName', Type.String()),
  field('newDeviceName', Type.String()),
]);
export const DeviceBody = Type.Intersect([field('userId', Type.String()), field('deviceName', Type.String())]);
export const VerifyDeviceBody = Type.Intersect([
  field('userId', Type.String()),
  field('deviceName', Type.String()),
  field('totp', Type.String()),
]);
export const VerifyCodeBody = Type.Intersect([field('userId', Type.String()), field('totp', Type.String())]);
export const UserIdsBody = Type.Object({ userIds: Type.Array(Type.Unknown()) });

const Exists = StatusOnly('DEVICE_ALREADY_EXISTS_ERROR');
const UnknownDevice = StatusOnly('UNKNOWN_DEVICE_ERROR');
const Invalid = Type.Object({
  status: Type.Literal('INVALID_TOTP_ERROR'),
  currentNumberOfFailedAttempts: Type.Optional(Type.Integer()),
  maxNumberOfFailedAttempts: Type.Optional(Type.Integer()),
});
const Limit = Type.Object({
  status: Type.Literal('LIMIT_REACHED_ERROR'),
  retryAfterMs: Type.Integer(),
  currentNumberOfFailedAttempts: Type.Optional(Type.Integer()),
  maxNumberOfFailedAttempts: Type.Optional(Type.Integer()),
});
export const CreateDeviceResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), deviceName: Type.String(), secret: Type.String() }),
  Exists,
]);
export const ImportDeviceResponse = Type.Union([Type.Object({ status: Type.Literal('OK'), deviceName: Type.String() }), Exists]);
export const RenameDeviceResponse = Type.Union([StatusOnly('OK'), UnknownDevice, Exists]);
export const ListDevicesResponse = Type.Object({
  status: Type.Literal('OK'),
  devices: Type.Array(Type.Object({ name: Type.String(), period: Type.Integer(), skew: Type.Integer(), verified: Type.Boolean() })),
});
export const RemoveDeviceResponse = Type.Object({ status: Type.Literal('OK'), didDeviceExist: Type.Boolean() });
export const VerifyDeviceResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), wasAlreadyVerified: Type.Boolean() }),
  UnknownDevice,
  Invalid,
  Limit,
]);
export const VerifyCodeResponse = Type.Union([StatusOnly('OK'), StatusOnly('UNKNOWN_USER_ID_ERROR'), Invalid, Limit]);
export const StatusBulkResponse = Type.Object({
  status: Type.Literal('OK'),
  users: Type.Array(Type.Object({ userId: Type.String(), hasVerifiedDevice: Type.Union([Type.Boolean(), Type.Null()]) })),
});
export const TextError = Type.String();

/** The checks M-5.4 runs after parsing, in its order. */
export function checkNotEmpty(values: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(values)) if (value === '') throw coreError('TOTP_FIELD_EMPTY', name);
}

export function checkSkewAndPeriod(skew: number, period: number): void {
  if (skew < 0) throw coreError('TOTP_SKEW_BOUND', '>= 0');
  if (period <= 0) throw coreError('TOTP_PERIOD_BOUND', '> 0');
  // [DEVIATION] bounded: an unbounded skew costs millions of HMACs per verification.
  if (skew > MAX_SKEW) throw coreError('TOTP_SKEW_BOUND', '<= 10');
  if (period > MAX_PERIOD) throw coreError('TOTP_PERIOD_BOUND', '<= 3600');
}
