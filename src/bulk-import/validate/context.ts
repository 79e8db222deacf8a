import type { PasswordHasher } from '../../hashing/registry.js';
import { javaTrim } from '../../normalise/java-trim.js';
import type { RelyingParties } from '../../recipes/webauthn/relying-parties.js';

// What validating the users of one request needs besides the users: shared by every validator of this folder.
export interface ValidationContext {
  now: number;
  // Roles that exist, at least those named in the users being validated.
  roles: ReadonlySet<string>;
  // Tenants that exist, at least those named in the users being validated (`public` always).
  tenants: ReadonlySet<string>;
  hasher: PasswordHasher;
  // Shared by every user of one request: an external id may appear only once in it.
  externalUserIds: Set<string>;
  // 'generate' gives new users fresh ids; 'stored' re-validates a queued user with the ids it was given.
  ids: 'generate' | 'stored';
  secondFactors: SecondFactorSettings;
  // The core's lazy-migration sources: a `$lazy$` pointer to another is refused, as the single import route does.
  // Absent when re-validating a queued user (checked when it was queued).
  lazySources?: { has(name: string): boolean };
  // The relying-party ids passkeys may be imported for (W-5); absent when re-validating a queued user.
  relyingParties?: RelyingParties;
}

export interface SecondFactorSettings {
  // totp_min_imported_secret_bits (M-6).
  minSecretBits: number;
  // bulk_import_totp_requires_factor (M-5.8).
  requireTotpFactor: boolean;
}

// A queued row was checked when it was queued, its metadata entry added then; re-reading it checks nothing again.
export const storedRowSettings: SecondFactorSettings = { minSecretBits: 0, requireTotpFactor: false };

/** A tenant id of an import as the path's tenant is read: trimmed and lower-cased. */
export function normaliseTenantId(tenantId: string): string {
  return javaTrim(tenantId).toLowerCase();
}
