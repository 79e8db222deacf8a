import type { RecipeId } from '../users/repository.js';
import type { TotpAlgorithm } from '../recipes/totp/code.js';
import type { StoredRecoveryCode } from '../recipes/totp/recovery-code-format.js';
import type { ImportWebauthnCredential } from '../recipes/webauthn/import-credential.js';

// A login method as validated and stored in the queue (raw_data), field names as on the wire (contract §10.1, §10.4).
export interface ImportLoginMethod {
  tenantIds: string[];
  isVerified: boolean;
  isPrimary: boolean;
  timeJoinedInMSSinceEpoch: number;
  recipeId: RecipeId;
  email?: string;
  passwordHash?: string;
  hashingAlgorithm?: string;
  plainTextPassword?: string;
  thirdPartyId?: string;
  thirdPartyUserId?: string;
  phoneNumber?: string;
  // A webauthn login method's passkeys (contract-webauthn W-4).
  credentials?: ImportWebauthnCredential[];
  superTokensUserId: string;
}

// A TOTP device as queued: its secret already normalised to canonical base32 (contract M-5.7, M-6).
export interface ImportTotpDevice {
  deviceName: string;
  secretKey: string;
  period: number;
  skew: number;
  algorithm: TotpAlgorithm;
  digits: number;
  lastUsedTimeStep?: number;
}

export interface ImportUserRole {
  role: string;
  tenantIds: string[];
}

// A validated user: one or more login methods (AL-11). `id` is the superTokensUserId of its primary login method
// (primaryLoginMethodOf) and becomes the user's internal id, the queue row id and, for a linked user, the group id.
export interface ImportUser {
  id: string;
  externalUserId?: string;
  userMetadata?: Record<string, unknown>;
  userRoles?: ImportUserRole[];
  totpDevices?: ImportTotpDevice[];
  // Digests only (M-7): codes given in clear are hashed when validated.
  recoveryCodes?: StoredRecoveryCode[];
  loginMethods: ImportLoginMethod[];
}

/** The id the app knows the user by, under which metadata, roles and second factors are written (M-2.1). */
export function outputIdOf(user: ImportUser): string {
  return user.externalUserId ?? user.id;
}

// AL-11.2 step 1: the first login method marked isPrimary, else the oldest (ties: the earliest in the array).
export function primaryLoginMethodOf(loginMethods: readonly ImportLoginMethod[]): ImportLoginMethod {
  const marked = loginMethods.find((method) => method.isPrimary);
  if (marked !== undefined) return marked;
  return loginMethods.reduce((oldest, method) => (method.timeJoinedInMSSinceEpoch < oldest.timeJoinedInMSSinceEpoch ? method : oldest));
}

// AL-11.2 step 2: a user marked primary, or with several login methods, is imported as one primary user.
export function becomesPrimaryUser(user: ImportUser): boolean {
  return user.loginMethods.length > 1 || user.loginMethods[0].isPrimary;
}

export type Validation = { ok: true; user: ImportUser } | { ok: false; errors: string[] };

// One user's outcome in a batch: imported, or failed with the coded message of §10.5.
export type ImportOutcome = { ok: true } | { ok: false; message: string };
