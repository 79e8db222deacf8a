import { Type } from '@sinclair/typebox';

export const CoreIdentityResponse = Type.Object({
  status: Type.Literal('OK'),
  coreId: Type.String(),
  importsAtOnce: Type.Boolean(),
  /** webauthn_rp_ids: the relying-party ids passkeys are imported for; null when the setting is unset (none). */
  webauthnRpIds: Type.Union([Type.Array(Type.String()), Type.Null()]),
});

export const CheckPasswordHashBody = Type.Object({
  passwordHash: Type.String(),
  hashingAlgorithm: Type.Optional(Type.String()),
  /** Without it, only whether the core would import the hash is checked. */
  password: Type.Optional(Type.String()),
});

export const CheckPasswordHashResponse = Type.Object({ status: Type.Literal('OK'), verified: Type.Optional(Type.Boolean()) });

const Strings = Type.Optional(Type.Array(Type.String()));

export const LookupUsersBody = Type.Object({
  externalUserIds: Strings,
  userIds: Strings,
  emails: Strings,
  /** Emails to look up among password users only, and among passwordless users only (`emails`: both). */
  emailPasswordEmails: Strings,
  passwordlessEmails: Strings,
  /** Emails to look up among webauthn (passkey) login methods only. */
  webauthnEmails: Strings,
  phoneNumbers: Strings,
  thirdPartyAccounts: Type.Optional(Type.Array(Type.Object({ thirdPartyId: Type.String(), thirdPartyUserId: Type.String() }))),
  /** Also answer what each user found holds beyond login methods (`material`), so a re-run sends only what is missing. */
  withMaterial: Type.Optional(Type.Boolean()),
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

// Per user found (group), with `withMaterial`: counts of second factors, top-level metadata keys, role assignments,
// and whether a password of it is still a `$lazy$` pointer. Counts and names only, never a secret.
const Material = Type.Object({
  groupId: Type.String(),
  totpDevices: Type.Integer(),
  recoveryCodes: Type.Integer(),
  metadataKeys: Type.Array(Type.String()),
  roles: Type.Array(Type.Object({ role: Type.String(), tenantId: Type.String() })),
  lazyPassword: Type.Boolean(),
});

export const LookupUsersResponse = Type.Object({
  status: Type.Literal('OK'),
  users: Type.Array(LookedUpUser),
  material: Type.Optional(Type.Array(Material)),
});
