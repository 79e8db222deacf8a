import type { LoginMethodRow, StoredUser } from './repository.js';
import type { WireUser } from '../http/schemas.js';
import { cdiAtLeast, type CdiVersion } from '../http/cdi-version.js';

type ThirdPartyInfo = { id: string; userId: string };

function thirdPartyOf(row: LoginMethodRow): ThirdPartyInfo | undefined {
  return row.third_party_id !== null ? { id: row.third_party_id, userId: row.third_party_user_id! } : undefined;
}

function outputIdOf(row: LoginMethodRow): string {
  return row.external_user_id ?? row.user_id;
}

function loginMethodObject(row: LoginMethodRow, cdiVersion: CdiVersion) {
  const thirdParty = thirdPartyOf(row);
  return {
    ...(cdiAtLeast(cdiVersion, '3.0') && { tenantIds: row.tenant_ids }),
    recipeUserId: outputIdOf(row),
    verified: row.verified,
    timeJoined: row.time_joined,
    recipeId: row.recipe_id,
    ...(row.email !== null && { email: row.email }),
    ...(row.phone_number !== null && { phoneNumber: row.phone_number }),
    ...(thirdParty && { thirdParty }),
    ...(row.recipe_id === 'webauthn' &&
      cdiAtLeast(cdiVersion, '5.3') && { webauthn: { credentialIds: row.webauthn_credential_ids ?? [] } }),
  };
}

function distinct<T>(values: T[], key: (value: T) => string = String): T[] {
  const seen = new Map<string, T>();
  for (const value of values) if (!seen.has(key(value))) seen.set(key(value), value);
  return [...seen.values()];
}

// The one place a stored user becomes a wire user (contract §3 and AL-3, older shapes §11 and AL-3.4). Every id is
// shown as its own external id when it has a mapping: the user's id through the group id's, each recipeUserId
// through that login method's (AL-3.3). Hashes are never part of a LoginMethodRow, so they cannot leak here.
export function toUserObject(user: StoredUser, cdiVersion: CdiVersion): WireUser {
  const methods = user.login_methods;
  if (!cdiAtLeast(cdiVersion, '4.0')) return legacyUserObject(methods[0], cdiVersion);
  const tenantIds = cdiAtLeast(cdiVersion, '3.0') ? { tenantIds: distinct(methods.flatMap((row) => row.tenant_ids)).sort() } : {};
  return {
    id: user.external_user_id ?? user.group_id,
    isPrimaryUser: user.is_primary,
    ...tenantIds,
    timeJoined: user.time_joined,
    emails: distinct(methods.flatMap((row) => (row.email !== null ? [row.email] : []))),
    phoneNumbers: distinct(methods.flatMap((row) => (row.phone_number !== null ? [row.phone_number] : []))),
    thirdParty: distinct(
      methods.flatMap((row) => thirdPartyOf(row) ?? []),
      (info) => `${info.id}\u0000${info.userId}`,
    ),
    ...(cdiAtLeast(cdiVersion, '5.3') && {
      webauthn: { credentialIds: distinct(methods.flatMap((row) => row.webauthn_credential_ids ?? [])) },
    }),
    loginMethods: methods.map((row) => loginMethodObject(row, cdiVersion)),
  };
}

// Before cdi 4.0 a user had one login method; a linked user is shown as its oldest one, id included (AL-3.4).
function legacyUserObject(row: LoginMethodRow, cdiVersion: CdiVersion): WireUser {
  const thirdParty = thirdPartyOf(row);
  return {
    id: outputIdOf(row),
    timeJoined: row.time_joined,
    ...(cdiAtLeast(cdiVersion, '3.0') && { tenantIds: row.tenant_ids }),
    ...(row.email !== null && { email: row.email }),
    ...(row.phone_number !== null && { phoneNumber: row.phone_number }),
    ...(thirdParty && { thirdParty }),
  };
}

/** The recipe of the login method a user is shown as before cdi 4.0 (the `recipeId` of old `/users` items). */
export function legacyRecipeIdOf(user: StoredUser): string {
  return user.login_methods[0].recipe_id;
}

// recipeUserId for sign-in/up responses (cdi >= 4.0 only): the login method that was used, with its own mapping.
export function recipeUserIdField(loginMethod: LoginMethodRow, cdiVersion: CdiVersion): { recipeUserId?: string } {
  return cdiAtLeast(cdiVersion, '4.0') ? { recipeUserId: outputIdOf(loginMethod) } : {};
}

/** The user and the login method a sign-in or sign-up used. */
export interface SignedIn {
  user: StoredUser;
  loginMethod: LoginMethodRow;
}

// The body of a successful sign-in or sign-up (email-password, passwordless consume, third party): the whole user
// and the login method used (AL-10.1).
export function signedInBody({ user, loginMethod }: SignedIn, cdiVersion: CdiVersion) {
  return { status: 'OK' as const, user: toUserObject(user, cdiVersion), ...recipeUserIdField(loginMethod, cdiVersion) };
}
