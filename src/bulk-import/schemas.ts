import { Type, type Static } from '@sinclair/typebox';
import { UserSchema } from '../http/schemas.js';

// Elements must be objects (else `Field name 'users' is invalid in JSON input`); their fields are checked by the
// bulk-import validator, which reports every error of every user at once (contract §10.2).
export const AddUsersBody = Type.Object({ users: Type.Array(Type.Object({})) });
export type AddUsersBody = Static<typeof AddUsersBody>;

export const AddUsersQuery = Type.Object({ dryRun: Type.Optional(Type.String()), importNow: Type.Optional(Type.String()) });
export type AddUsersQuery = Static<typeof AddUsersQuery>;

const NullableString = Type.Union([Type.String(), Type.Null()]);

const EnqueuedLoginMethod = Type.Object({
  recipeId: Type.String(),
  userId: Type.String(),
  tenants: Type.Array(Type.String()),
  email: Type.Optional(NullableString),
  phoneNumber: Type.Optional(NullableString),
  // Lower-case p, as the reference writes it.
  thirdpartyId: Type.Optional(Type.String()),
  thirdpartyUserId: Type.Optional(Type.String()),
});

const EnqueuedUser = Type.Object({ userId: Type.String(), loginMethods: Type.Array(EnqueuedLoginMethod) });
export type EnqueuedUser = Static<typeof EnqueuedUser>;

// `weakHashes` (beyond the reference, present only when some hash is weak): see weak-hashes.ts.
const WeakHashes = Type.Optional(Type.Integer({ minimum: 1 }));

export const AddUsersResponse = Type.Object({
  status: Type.Literal('OK'),
  users: Type.Optional(Type.Array(EnqueuedUser)),
  // [BEYOND] importNow only: how many of `users` are in the core now and how many became FAILED queue rows.
  imported: Type.Optional(Type.Integer({ minimum: 0 })),
  failed: Type.Optional(Type.Integer({ minimum: 0 })),
  weakHashes: WeakHashes,
});

export const QueueStatusQuery = Type.Object({ status: Type.Optional(Type.String()) });
export type QueueStatusQuery = Static<typeof QueueStatusQuery>;

export const ListUsersQuery = Type.Object({
  status: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
  paginationToken: Type.Optional(Type.String()),
});
export type ListUsersQuery = Static<typeof ListUsersQuery>;

// The stored user JSON (contract §10.4): what was given, normalised, with the generated ids. [DEVIATION] Password
// hashes and plain-text passwords (which rows queued before they were hashed at enqueue may still hold) are secrets
// and never listed: the serializer drops every field this schema does not name.
const StoredLoginMethod = Type.Object({
  tenantIds: Type.Array(Type.String()),
  isVerified: Type.Boolean(),
  isPrimary: Type.Boolean(),
  timeJoinedInMSSinceEpoch: Type.Number(),
  recipeId: Type.String(),
  superTokensUserId: Type.String(),
  email: Type.Optional(Type.String()),
  hashingAlgorithm: Type.Optional(Type.String()),
  thirdPartyId: Type.Optional(Type.String()),
  thirdPartyUserId: Type.Optional(Type.String()),
  phoneNumber: Type.Optional(Type.String()),
});

const QueueEntry = Type.Object({
  id: Type.String(),
  status: Type.String(),
  createdAt: Type.Number(),
  updatedAt: Type.Number(),
  errorMessage: Type.Optional(Type.String()),
  primaryUserId: Type.Optional(Type.String()),
  externalUserId: Type.Optional(Type.String()),
  userMetadata: Type.Optional(Type.Unknown()),
  userRoles: Type.Optional(Type.Array(Type.Object({ role: Type.String(), tenantIds: Type.Array(Type.String()) }))),
  loginMethods: Type.Array(StoredLoginMethod),
});
export type QueueEntry = Static<typeof QueueEntry>;

export const ListUsersResponse = Type.Object({
  status: Type.Literal('OK'),
  users: Type.Array(QueueEntry),
  nextPaginationToken: Type.Optional(Type.String()),
});
export type ListUsersResult = Static<typeof ListUsersResponse>;

const Count = Type.Integer();

export const CountUsersResponse = Type.Object({
  status: Type.Literal('OK'),
  count: Count,
  byStatus: Type.Optional(Type.Object({ NEW: Count, PROCESSING: Count, FAILED: Count })),
});
export type CountResult = Static<typeof CountUsersResponse>;

// Element types are checked after the size limit, as the reference does, so the schema accepts any array.
export const RemoveUsersBody = Type.Object({ ids: Type.Array(Type.Unknown()) });
export type RemoveUsersBody = Static<typeof RemoveUsersBody>;

export const RemoveUsersResponse = Type.Object({ deletedIds: Type.Array(Type.String()), invalidIds: Type.Array(Type.String()) });
export type RemoveUsersResult = Static<typeof RemoveUsersResponse>;

export const ImportUserBody = Type.Object({});

export const ImportUserResponse = Type.Object({ status: Type.Literal('OK'), user: UserSchema, weakHashes: WeakHashes });

// 400 bodies of bulk import, which answers its input errors as JSON (the other 400s are plain text).
export const AddUsersErrors = Type.Object({
  error: Type.String(),
  users: Type.Optional(Type.Array(Type.Object({ index: Type.Integer(), errors: Type.Array(Type.String()) }))),
});
export const ImportUserErrors = Type.Object({ errors: Type.Array(Type.String()) });
