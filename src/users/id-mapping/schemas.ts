import { Type, type Static } from '@sinclair/typebox';
import { OkStatus, StatusOnly } from '../../http/schemas.js';

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const CreateMappingBody = Type.Object({
  superTokensUserId: Type.String(),
  externalUserId: Type.String(),
  externalUserIdInfo: Type.Optional(NullableString),
  force: Type.Optional(Type.Boolean()),
});

export const CreateMappingResponse = Type.Union([
  OkStatus,
  StatusOnly('UNKNOWN_SUPERTOKENS_USER_ID_ERROR'),
  Type.Object({
    status: Type.Literal('USER_ID_MAPPING_ALREADY_EXISTS_ERROR'),
    doesSuperTokensUserIdExist: Type.Boolean(),
    doesExternalUserIdExist: Type.Boolean(),
  }),
]);
export type CreateMappingResult = Static<typeof CreateMappingResponse>;

export const GetMappingQuery = Type.Object({ userId: Type.String(), userIdType: Type.Optional(Type.String()) });

export const GetMappingResponse = Type.Union([
  Type.Object({
    status: Type.Literal('OK'),
    superTokensUserId: Type.String(),
    externalUserId: Type.String(),
    externalUserIdInfo: Type.Optional(Type.String()),
  }),
  StatusOnly('UNKNOWN_MAPPING_ERROR'),
]);
export type GetMappingResult = Static<typeof GetMappingResponse>;

export const RemoveMappingBody = Type.Object({
  userId: Type.String(),
  userIdType: Type.Optional(Type.String()),
  force: Type.Optional(Type.Boolean()),
});

export const RemoveMappingResponse = Type.Object({ status: Type.Literal('OK'), didMappingExist: Type.Boolean() });
export type RemoveMappingResult = Static<typeof RemoveMappingResponse>;

// externalUserIdInfo is a required key; null removes the info.
export const UpdateExternalUserIdInfoBody = Type.Object({
  userId: Type.String(),
  userIdType: Type.Optional(Type.String()),
  externalUserIdInfo: NullableString,
});

export const UpdateExternalUserIdInfoResponse = Type.Union([OkStatus, StatusOnly('UNKNOWN_MAPPING_ERROR')]);
export type UpdateExternalUserIdInfoResult = Static<typeof UpdateExternalUserIdInfoResponse>;
