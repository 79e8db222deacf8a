import type { Static } from '@sinclair/typebox';
import type { UserRow } from './repository.js';
import type { UserSchema } from '../http/schemas.js';
import { cdiAtLeast, type CdiVersion } from '../http/cdi-version.js';

export type WireUser = Static<typeof UserSchema>;
type ThirdPartyInfo = { id: string; userId: string };

// The one place a stored user becomes a wire user (contract §3, older shapes §11). Ids are the external id when
// a mapping exists. Hashes are never part of a UserRow, so they cannot leak here.
export function toUserObject(row: UserRow, cdiVersion: CdiVersion): WireUser {
  const id = row.external_user_id ?? row.user_id;
  const thirdParty = row.third_party_id !== null ? { id: row.third_party_id, userId: row.third_party_user_id! } : undefined;
  if (!cdiAtLeast(cdiVersion, '4.0')) return legacyUserObject(row, id, thirdParty, cdiVersion);

  const tenantIds = cdiAtLeast(cdiVersion, '3.0') ? { tenantIds: [row.tenant_id] } : {};
  const loginMethod = {
    ...tenantIds,
    recipeUserId: id,
    verified: row.verified,
    timeJoined: row.time_joined,
    recipeId: row.recipe_id,
    ...(row.email !== null && { email: row.email }),
    ...(row.phone_number !== null && { phoneNumber: row.phone_number }),
    ...(thirdParty && { thirdParty }),
  };
  return {
    id,
    isPrimaryUser: false,
    ...tenantIds,
    timeJoined: row.time_joined,
    emails: row.email !== null ? [row.email] : [],
    phoneNumbers: row.phone_number !== null ? [row.phone_number] : [],
    thirdParty: thirdParty ? [thirdParty] : [],
    ...(cdiAtLeast(cdiVersion, '5.3') && { webauthn: { credentialIds: [] } }),
    loginMethods: [loginMethod],
  };
}

function legacyUserObject(row: UserRow, id: string, thirdParty: ThirdPartyInfo | undefined, cdiVersion: CdiVersion): WireUser {
  return {
    id,
    timeJoined: row.time_joined,
    ...(cdiAtLeast(cdiVersion, '3.0') && { tenantIds: [row.tenant_id] }),
    ...(row.email !== null && { email: row.email }),
    ...(row.phone_number !== null && { phoneNumber: row.phone_number }),
    ...(thirdParty && { thirdParty }),
  };
}

// recipeUserId for sign-in/up responses (cdi >= 4.0 only).
export function recipeUserIdField(row: UserRow, cdiVersion: CdiVersion): { recipeUserId?: string } {
  return cdiAtLeast(cdiVersion, '4.0') ? { recipeUserId: row.external_user_id ?? row.user_id } : {};
}

// The body of a successful sign-in or sign-up (email-password, passwordless consume, third party).
export function signedInBody(row: UserRow, cdiVersion: CdiVersion) {
  return { status: 'OK' as const, user: toUserObject(row, cdiVersion), ...recipeUserIdField(row, cdiVersion) };
}
