import type pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config/config.js';
import { HealthService } from './core/health-service.js';
import { PasswordHasher } from './hashing/registry.js';
import { hashingOptionsFromConfig } from './hashing/options.js';
import type { HashingObserver } from './hashing/observer.js';
import { PasswordlessService } from './recipes/passwordless/service.js';
import { EmailPasswordService } from './recipes/emailpassword/service.js';
import { ThirdPartyService } from './recipes/thirdparty/service.js';
import { UserService } from './users/service.js';
import { UserIdMappingService } from './users/id-mapping/service.js';
import { BulkImportService } from './bulk-import/service.js';
import { PasswordResetService } from './recipes/emailpassword/password-reset.js';
import { EmailVerificationService } from './recipes/emailverification/service.js';
import { LazyMigrationService, type LazyMigrationObserver } from './lazy-migration/service.js';
import { MigrationSupportService } from './bulk-import/migration-support-service.js';
import type { VerificationScheduler } from './hashing/verification-scheduler.js';

export interface ServiceDependencies {
  config: Readonly<Config>;
  pool: pg.Pool;
  clock: () => number;
  log: FastifyBaseLogger;
  // One hasher for the process, so its concurrency limits hold across recipes and bulk import.
  hasher: PasswordHasher;
  metrics?: ServiceMetrics;
}

// What services report for the metrics (the services know nothing of Prometheus).
export interface ServiceMetrics extends HashingObserver, LazyMigrationObserver {
  bulkBatchFinished(imported: number, failed: number): void;
}

// The composition root: every service gets what it needs here; nothing reads globals.
export interface Services {
  config: Readonly<Config>;
  hasher: PasswordHasher;
  health: HealthService;
  passwordless: PasswordlessService;
  emailPassword: EmailPasswordService;
  thirdParty: ThirdPartyService;
  users: UserService;
  userIdMapping: UserIdMappingService;
  bulkImport: BulkImportService;
  passwordReset: PasswordResetService;
  emailVerification: EmailVerificationService;
  lazyMigration: LazyMigrationService;
  migrationSupport: MigrationSupportService;
  // Every hash and verify of the process; its getters give queue depth, waits and 503 counts.
  verificationScheduler: VerificationScheduler;
  // Stops background jobs (code cleanup, bulk-import processing) before the pool closes.
  stop(): Promise<void>;
}

export function createServices(base: Omit<ServiceDependencies, 'hasher'>): Services {
  const deps = { ...base, hasher: new PasswordHasher(hashingOptionsFromConfig(base.config), base.metrics) };
  // Builds the decoy hash now, so the first sign-in of an unknown email costs no more than any other. If this is
  // refused (the app closing at once), the decoy is simply built on first use.
  deps.hasher.verifyDecoy('').catch(() => undefined);
  const passwordless = new PasswordlessService(deps);
  const bulkImport = new BulkImportService(deps);
  const lazyMigration = new LazyMigrationService({
    pool: deps.pool,
    config: deps.config.lazy_migration,
    log: deps.log as unknown as Logger,
    clock: deps.clock,
    hashPassword: (password) => deps.hasher.hash(password, { wholePassword: true }),
    userAgent: 'identity-core',
    observer: deps.metrics,
  });
  const emailPassword = new EmailPasswordService(deps, lazyMigration);
  return {
    config: deps.config,
    hasher: deps.hasher,
    health: new HealthService(deps.pool),
    passwordless,
    emailPassword,
    thirdParty: new ThirdPartyService(deps),
    users: new UserService(deps),
    userIdMapping: new UserIdMappingService(deps),
    bulkImport,
    passwordReset: new PasswordResetService(deps),
    emailVerification: new EmailVerificationService(deps),
    lazyMigration,
    migrationSupport: new MigrationSupportService(deps),
    verificationScheduler: deps.hasher.scheduler,
    async stop() {
      await Promise.all([passwordless.stop(), bulkImport.stop(), emailPassword.stop()]);
    },
  };
}
