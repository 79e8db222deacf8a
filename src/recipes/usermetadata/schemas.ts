import { Type } from '@sinclair/typebox';

// Any JSON object, serialised as it is.
export const MetadataObject = Type.Object({}, { additionalProperties: true });

export const UserIdQuery = Type.Object({ userId: Type.String() });
export const UserIdBody = Type.Object({ userId: Type.String() });
// One object per field, checked in order (see recipes/emailpassword/schemas.ts): the first bad field is named.
export const UpdateMetadataBody = Type.Intersect([Type.Object({ userId: Type.String() }), Type.Object({ metadataUpdate: MetadataObject })]);
export const BulkMetadataBody = Type.Object({ userIds: Type.Array(Type.Unknown()) });

export const MetadataResponse = Type.Object({ metadata: MetadataObject, status: Type.Literal('OK') });
export const BulkMetadataResponse = Type.Object({
  status: Type.Literal('OK'),
  users: Type.Array(Type.Object({ userId: Type.String(), metadata: Type.Union([MetadataObject, Type.Null()]) })),
});
export const TextError = Type.String();
