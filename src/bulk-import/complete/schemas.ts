import { Type } from '@sinclair/typebox';

// The users in the shape of POST /bulk-import/users, each with its externalUserId; the bulk-import validator
// checks their fields and names each error (contract §10.2).
export const CompleteUsersBody = Type.Object({ users: Type.Array(Type.Object({})) });

const CompletionAnswer = Type.Union([
  Type.Object({ status: Type.Literal('COMPLETED'), userId: Type.String(), added: Type.Array(Type.String()) }),
  Type.Object({ status: Type.Literal('UNCHANGED'), userId: Type.String() }),
  Type.Object({ status: Type.Literal('CONFLICT'), userId: Type.Optional(Type.String()), reason: Type.String() }),
  Type.Object({ status: Type.Literal('NOT_FOUND') }),
]);

export const CompleteUsersResponse = Type.Object({ status: Type.Literal('OK'), users: Type.Array(CompletionAnswer) });
