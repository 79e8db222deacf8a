import { Type } from '@sinclair/typebox';

export const CoreIdentityResponse = Type.Object({ status: Type.Literal('OK'), coreId: Type.String() });

const Strings = Type.Optional(Type.Array(Type.String()));

export const LookupUsersBody = Type.Object({
  externalUserIds: Strings,
  userIds: Strings,
  emails: Strings,
  phoneNumbers: Strings,
  thirdPartyAccounts: Type.Optional(Type.Array(Type.Object({ thirdPartyId: Type.String(), thirdPartyUserId: Type.String() }))),
});

const LookedUpUser = Type.Object({
  userId: Type.String(),
  externalUserId: Type.Optional(Type.String()),
  /** The user this login method belongs to: its primary user's id, or its own id when it stands alone. */
  groupId: Type.String(),
  recipeId: Type.String(),
  timeJoined: Type.Number(),
  email: Type.Optional(Type.String()),
  phoneNumber: Type.Optional(Type.String()),
  thirdPartyId: Type.Optional(Type.String()),
  thirdPartyUserId: Type.Optional(Type.String()),
});

export const LookupUsersResponse = Type.Object({ status: Type.Literal('OK'), users: Type.Array(LookedUpUser) });
