import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from './config/config.js';
import type { PasswordHasher } from './hashing/registry.js';
import type { HashingObserver } from './hashing/observer.js';
import type { TotpSecretBox } from './keys/secret-box.js';

// What the composition root (services.ts) hands every service.
export interface ServiceDependencies {
  config: Readonly<Config>;
  pool: pg.Pool;
  clock: () => number;
  log: Logger;
  // One hasher for the process, so its concurrency limits hold across recipes and bulk import.
  hasher: PasswordHasher;
  // Opens and seals TOTP secrets (totp_secret_keys); built at start by prepareTotpSecrets.
  totpSecrets: TotpSecretBox;
  metrics?: ServiceMetrics;
  // Each tenant's overrides of the per-tenant settings, read from the tenant cache.
  tenantSettings: TenantSettings;
}

/** The settings a tenant may override (contract-multitenancy M2); every other setting is config.yaml's for all. */
export type TenantSettingKey =
  | 'password_reset_token_lifetime'
  | 'email_verification_token_lifetime'
  | 'passwordless_code_lifetime'
  | 'passwordless_max_code_input_attempts'
  | 'totp_max_attempts'
  | 'totp_rate_limit_cooldown_sec';

export interface TenantSettings {
  /** A setting as it applies under the tenant: the tenant's override, else config.yaml's value. */
  valueIn(tenantId: string, key: TenantSettingKey): Promise<number>;
  /** The largest value any tenant applies: sweeps of expired rows keep what the longest-lived tenant still uses. */
  longest(key: TenantSettingKey): Promise<number>;
}

// What services report for the metrics (the services know nothing of Prometheus). Lazy migration and the session
// bridge have observers of their own, beside them, which the composition root hands them.
export interface ServiceMetrics extends HashingObserver {
  bulkBatchFinished(imported: number, failed: number): void;
}
