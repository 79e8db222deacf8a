import type { RecipeId } from '../users/repository.js';

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
  superTokensUserId: string;
}

export interface ImportUserRole {
  role: string;
  tenantIds: string[];
}

// A validated user. Multiple login methods need account linking and never validate, so there is always exactly one;
// `id` is its superTokensUserId and becomes the user's internal id.
export interface ImportUser {
  id: string;
  externalUserId?: string;
  userMetadata?: Record<string, unknown>;
  userRoles?: ImportUserRole[];
  loginMethods: [ImportLoginMethod];
}

export type Validation = { ok: true; user: ImportUser } | { ok: false; errors: string[] };

// One user's outcome in a batch: imported, or failed with the coded message of §10.5.
export type ImportOutcome = { ok: true } | { ok: false; message: string };
