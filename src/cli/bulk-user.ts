// The user JSON of POST /bulk-import/users (contract §10.1), restricted to what the readers produce.
export type RecipeId = 'emailpassword' | 'thirdparty' | 'passwordless' | 'webauthn';

/** A passkey as bulk import takes it (contract-webauthn W-4): the raw id as unpadded base64url, the COSE key. */
export interface PasskeyCredential {
  credentialId: string;
  publicKey: string;
  rpId: string;
  counter?: number;
  transports?: string[];
  aaguid?: string;
  userHandle?: string;
  createdAt?: number;
}

export interface LoginMethod {
  recipeId: RecipeId;
  email?: string;
  passwordHash?: string;
  hashingAlgorithm?: string;
  phoneNumber?: string;
  thirdPartyId?: string;
  thirdPartyUserId?: string;
  /** webauthn: the user's passkeys. */
  credentials?: PasskeyCredential[];
  isVerified?: boolean;
  timeJoinedInMSSinceEpoch?: number;
  /** The tenants the login method is in; absent: `public` (contract-multitenancy T-5). */
  tenantIds?: string[];
  /** Set on the first login method of a user that has several: the core links the others to it. */
  isPrimary?: boolean;
}

/** A TOTP device as bulk import takes it (contract M-5.7): the secret in the source's own encoding. */
export interface TotpDevice {
  secretKey: string;
  secretEncoding?: 'base32' | 'hex' | 'base64' | 'raw' | 'otpauth';
  algorithm?: 'SHA1' | 'SHA256' | 'SHA512';
  digits?: number;
  period?: number;
  skew?: number;
  deviceName?: string;
  /** Codes of this time step and earlier are refused as replays. */
  lastUsedTimeStep?: number;
}

/** A recovery code as bulk import takes it (contract M-7): plain, or the source's digest of it. */
export type RecoveryCode =
  string | { code: string; usedAt?: number } | { hash: string; hashingAlgorithm: 'bcrypt' | 'sha256' | 'sha512'; usedAt?: number };

export interface UserRole {
  role: string;
  tenantIds: string[];
}

export interface BulkImportUser {
  externalUserId?: string;
  /** What the export says about the user beyond the login (names, pictures, claims): see docs/migration-mapping.md. */
  userMetadata?: Record<string, unknown>;
  userRoles?: UserRole[];
  totpDevices?: TotpDevice[];
  recoveryCodes?: RecoveryCode[];
  /** The first is the user's primary login method; the core links the others to it (one person, one user). */
  loginMethods: [LoginMethod, ...LoginMethod[]];
}

/** A login method as the report shows it: never the password hash. */
export interface MethodSummary {
  recipeId: RecipeId;
  email?: string;
  phoneNumber?: string;
  thirdPartyId?: string;
  thirdPartyUserId?: string;
  /** Why this method could not have been imported even on its own. */
  problem?: string;
}

/** One user of the export, after mapping. */
export interface SourceRecord {
  /** 0-based position in the export; the state file counts in these. */
  index: number;
  /** How the report names the user: the old user id, else the email or phone number. */
  key: string;
  user?: BulkImportUser;
  /** Set when `user` is undefined: why it will not be sent. */
  problem?: { kind: 'invalid' | 'skipped' | 'duplicate'; reason: string };
  /** Login methods of this user that are not imported, each with the reason it cannot be. */
  collisions: MethodSummary[];
  /** Data of the export that is not carried, each as `<field>: <why>`. */
  notCarried?: string[];
  /** What is carried beyond login methods and profile (roles, second factors, marks), for the report. */
  carried?: string[];
  /**
   * Phone numbers linked only as a second factor: a twin of another user's number drops the factor, not the user
   * (first-record-wins.ts), and marks the user to enrol it again under this source and time.
   */
  factorPhones?: { phones: string[]; source: string; markedAt: number };
  /** The relying-party id of each passkey the export holds for the user, carried or not ('' when it does not say). */
  passkeyRpIds?: string[];
  /** The RP ID of each passkey left behind only because the core's webauthn_rp_ids does not list it. */
  unconfiguredRpIds?: string[];
}

export function summariseMethod(method: LoginMethod, problem?: string): MethodSummary {
  return {
    recipeId: method.recipeId,
    ...(method.email !== undefined && { email: method.email }),
    ...(method.phoneNumber !== undefined && { phoneNumber: method.phoneNumber }),
    ...(method.thirdPartyId !== undefined && { thirdPartyId: method.thirdPartyId }),
    ...(method.thirdPartyUserId !== undefined && { thirdPartyUserId: method.thirdPartyUserId }),
    ...(problem !== undefined && { problem }),
  };
}

/** A login method a reader found, with the reason it cannot be imported when it cannot. */
export interface Candidate {
  method: LoginMethod;
  problem?: string;
}
