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
}

// What services report for the metrics (the services know nothing of Prometheus). Lazy migration and the session
// bridge have observers of their own, beside them, which the composition root hands them.
export interface ServiceMetrics extends HashingObserver {
  bulkBatchFinished(imported: number, failed: number): void;
}
