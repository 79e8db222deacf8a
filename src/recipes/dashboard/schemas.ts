import { Type } from '@sinclair/typebox';
import { StatusOnly } from '../../http/schemas.js';

// Bodies declare their fields for the OpenAPI document but leave their checks to the routes: the reference reads
// the fields one by one, answering a bad email before it reads the password, and so do they (fields.ts).
const Field = Type.Optional(Type.Unknown());
export const CredentialsBody = Type.Object({ email: Field, password: Field });
export const SessionIdBody = Type.Object({ sessionId: Field });
export const UpdateUserBody = Type.Object({ userId: Field, email: Field, newEmail: Field, newPassword: Field });

export const SessionIdQuery = Type.Object({ sessionId: Type.Optional(Type.String()) });
export const UserSelectorQuery = Type.Object({ userId: Type.Optional(Type.String()), email: Type.Optional(Type.String()) });
export const UserIdQuery = Type.Object({ userId: Type.Optional(Type.String()) });

export const TextError = Type.String();

const DashboardUser = Type.Object({ email: Type.String(), userId: Type.String(), timeJoined: Type.Number() });
const PasswordWeak = Type.Object({ status: Type.Literal('PASSWORD_WEAK_ERROR'), message: Type.String() });

export const SignInResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), sessionId: Type.String() }),
  StatusOnly('INVALID_CREDENTIALS_ERROR'),
]);

export const VerifyResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), email: Type.Optional(Type.String()) }),
  StatusOnly('INVALID_SESSION_ERROR'),
]);

export const OkResponse = StatusOnly('OK');

export const CreateUserResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), user: DashboardUser }),
  StatusOnly('INVALID_EMAIL_ERROR'),
  PasswordWeak,
  StatusOnly('EMAIL_ALREADY_EXISTS_ERROR'),
]);

export const UpdateUserResponse = Type.Union([
  Type.Object({ status: Type.Literal('OK'), user: DashboardUser }),
  StatusOnly('INVALID_EMAIL_ERROR'),
  PasswordWeak,
  StatusOnly('EMAIL_ALREADY_EXISTS_ERROR'),
  StatusOnly('UNKNOWN_USER_ERROR'),
]);

export const DeleteUserResponse = Type.Object({ status: Type.Literal('OK'), didUserExist: Type.Boolean() });

export const UsersResponse = Type.Object({ status: Type.Literal('OK'), users: Type.Array(DashboardUser) });

export const SessionsResponse = Type.Object({
  status: Type.Literal('OK'),
  sessions: Type.Array(Type.Object({ userId: Type.String(), sessionId: Type.String(), timeCreated: Type.Number(), expiry: Type.Number() })),
});

export const SearchTagsResponse = Type.Object({ status: Type.Literal('OK'), tags: Type.Array(Type.String()) });

const ConfigValue = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);
export const CoreConfigResponse = Type.Object({
  status: Type.Literal('OK'),
  config: Type.Array(
    Type.Object({
      key: Type.String(),
      valueType: Type.String(),
      value: ConfigValue,
      description: Type.String(),
      isDifferentAcrossTenants: Type.Boolean(),
      possibleValues: Type.Union([Type.Array(Type.String()), Type.Null()]),
      isNullable: Type.Boolean(),
      defaultValue: ConfigValue,
      isPluginProperty: Type.Boolean(),
      isPluginPropertyEditable: Type.Boolean(),
    }),
  ),
});
