import type { Config } from './config/config.js';
import { HealthService } from './core/health-service.js';
import { PasswordHasher } from './hashing/registry.js';
import { hashingOptionsFromConfig } from './hashing/options.js';
import { PasswordlessService } from './recipes/passwordless/service.js';
import { EmailPasswordService } from './recipes/emailpassword/service.js';
import { ThirdPartyService } from './recipes/thirdparty/service.js';
import { UserService } from './users/service.js';
import { AccountLinkingService } from './account-linking/service.js';
import { UserIdMappingService } from './users/id-mapping/service.js';
import { BulkImportService } from './bulk-import/service.js';
import { createBulkImportWorker, type BulkImportWorker } from './bulk-import/worker.js';
import { StatisticsRefresher } from './bulk-import/statistics-refresh.js';
import { startCleanupJob, type CleanupJob } from './recipes/passwordless/cleanup-job.js';
import { PasswordResetService } from './recipes/emailpassword/password-reset.js';
import { EmailVerificationService } from './recipes/emailverification/service.js';
import { LazyMigrationService, type LazyMigrationObserver } from './lazy-migration/service.js';
import { SessionBridgeService, type SessionBridgeObserver } from './session-bridge/service.js';
import { MigrationSupportService } from './bulk-import/migration-support-service.js';
import { UserCompletionService } from './bulk-import/complete/service.js';
import type { VerificationScheduler } from './hashing/verification-scheduler.js';
import { UserMetadataService } from './recipes/usermetadata/service.js';
import { UserRolesService } from './recipes/userroles/service.js';
import { TotpService } from './recipes/totp/service.js';
import type { TotpSecretBox } from './keys/secret-box.js';
import { RecoveryCodeService } from './recipes/totp/recovery-codes.js';
import { SigningKeys } from './keys/signing-keys.js';
import type { ServiceDependencies, ServiceMetrics } from './service-deps.js';
import { SessionService } from './recipes/session/service.js';
import { JwtService } from './recipes/jwt/service.js';
import { perUserStores } from './per-user-stores.js';
import { WebauthnService } from './recipes/webauthn/service.js';
import { DashboardService } from './recipes/dashboard/service.js';
import { MultitenancyService } from './recipes/multitenancy/service.js';

// Expired sessions (the dashboard's too) and signing keys past their listing window are swept this often (S-5), the
// first time one interval after start.
const sessionCleanupIntervalMs = 12 * 60 * 60 * 1000;

// The composition root: every service gets what it needs here; nothing reads globals.
export interface Services {
  config: Readonly<Config>;
  hasher: PasswordHasher;
  totpSecrets: TotpSecretBox;
  health: HealthService;
  passwordless: PasswordlessService;
  emailPassword: EmailPasswordService;
  thirdParty: ThirdPartyService;
  users: UserService;
  accountLinking: AccountLinkingService;
  userIdMapping: UserIdMappingService;
  bulkImport: BulkImportService;
  // Empties the bulk-import queue; processUntilEmpty() drains it now (tests and tools), whether or not it was started.
  bulkImportWorker: BulkImportWorker;
  passwordReset: PasswordResetService;
  emailVerification: EmailVerificationService;
  lazyMigration: LazyMigrationService;
  // Old providers' tokens exchanged once for the imported users they name (docs/session-bridge.md).
  sessionBridge: SessionBridgeService;
  migrationSupport: MigrationSupportService;
  userCompletion: UserCompletionService;
  userMetadata: UserMetadataService;
  userRoles: UserRolesService;
  totp: TotpService;
  recoveryCodes: RecoveryCodeService;
  // The access-token and JWT signing keys, shared through the database by every core on it.
  keys: SigningKeys;
  session: SessionService;
  jwt: JwtService;
  // Passkeys: options, credentials and recovery tokens (contract-webauthn).
  webauthn: WebauthnService;
  // Dashboard users and their sessions (docs/dashboard.md).
  dashboard: DashboardService;
  // Tenants as configuration and their third-party providers, with the in-memory list of tenants (docs/organizations.md).
  multitenancy: MultitenancyService;
  // Every hash and verify of the process; its getters give queue depth, waits and 503 counts.
  verificationScheduler: VerificationScheduler;
  // Starts the background jobs (the decoy hash, the code cleanup, bulk-import processing) once the app is ready.
  start(): void;
  // Stops them and waits for their work in flight, before the pool closes.
  stop(): Promise<void>;
}

// Used TOTP codes past their lifetime and cooldown are deleted hourly, as the reference does (contract M-5.6).
const TOTP_CLEANUP_INTERVAL_MS = 3_600_000;

// The metrics observe the services, lazy migration and the session bridge alike.
type CoreObservers = ServiceMetrics & LazyMigrationObserver & SessionBridgeObserver;

export function createServices(
  base: Omit<ServiceDependencies, 'hasher' | 'metrics' | 'tenantSettings'> & { metrics?: CoreObservers },
): Services {
  // Built first: every recipe reads its tenant's settings from its cache.
  const multitenancy = new MultitenancyService(base);
  const deps = {
    ...base,
    hasher: new PasswordHasher(hashingOptionsFromConfig(base.config), base.metrics),
    tenantSettings: multitenancy,
  };
  const passwordless = new PasswordlessService(deps);
  const statistics = new StatisticsRefresher(deps.pool, deps.log);
  const bulkImportWorker = createBulkImportWorker(deps, statistics);
  const lazyMigration = new LazyMigrationService({
    pool: deps.pool,
    config: deps.config.lazy_migration,
    log: deps.log,
    clock: deps.clock,
    hashPassword: (password) => deps.hasher.hash(password, { wholePassword: true }),
    userAgent: 'identity-core',
    observer: deps.metrics,
  });
  const emailPassword = new EmailPasswordService(deps, lazyMigration);
  const sessionBridge = new SessionBridgeService({
    pool: deps.pool,
    config: deps.config.session_bridge,
    log: deps.log,
    clock: deps.clock,
    observer: deps.metrics,
  });
  const totp = new TotpService(deps);
  let totpCleanup: CleanupJob | undefined;
  const webauthn = new WebauthnService(deps);
  let webauthnCleanup: CleanupJob | undefined;
  const keys = new SigningKeys({
    pool: deps.pool,
    clock: deps.clock,
    log: deps.log,
    updateIntervalMs: deps.config.access_token_dynamic_signing_key_update_interval * 3_600_000,
    accessTokenValidityMs: deps.config.access_token_validity * 1000,
  });
  const session = new SessionService({ pool: deps.pool, config: deps.config, clock: deps.clock, keys });
  const dashboard = new DashboardService(deps);
  let cleanup: CleanupJob | undefined;
  let sessionCleanup: CleanupJob | undefined;
  let keysLoading: Promise<void> | undefined;
  return {
    config: deps.config,
    hasher: deps.hasher,
    totpSecrets: deps.totpSecrets,
    health: new HealthService(deps.pool),
    passwordless,
    emailPassword,
    thirdParty: new ThirdPartyService(deps),
    users: new UserService(deps, perUserStores),
    accountLinking: new AccountLinkingService(deps),
    userIdMapping: new UserIdMappingService(deps, perUserStores),
    bulkImport: new BulkImportService(deps, { statistics, worker: bulkImportWorker }),
    bulkImportWorker,
    passwordReset: new PasswordResetService(deps),
    emailVerification: new EmailVerificationService(deps),
    lazyMigration,
    sessionBridge,
    migrationSupport: new MigrationSupportService(deps),
    userCompletion: new UserCompletionService(deps),
    userMetadata: new UserMetadataService(deps),
    userRoles: new UserRolesService(deps),
    totp,
    recoveryCodes: new RecoveryCodeService(deps),
    keys,
    session,
    jwt: new JwtService(keys, deps.clock),
    webauthn,
    dashboard,
    multitenancy,
    verificationScheduler: deps.hasher.scheduler,
    start() {
      // The keys are made (or read) now, so the first session or JWKS request does not wait for an RSA key.
      keysLoading ??= keys.ready().catch((err: unknown) => deps.log.error({ err }, 'loading the signing keys failed'));
      const sweepSessions = async () => (await session.deleteExpired()) + (await dashboard.deleteExpiredSessions());
      sessionCleanup ??= startCleanupJob(sessionCleanupIntervalMs, sweepSessions, deps.log, 'sessions');
      // The decoy hash is built now, so the first sign-in of an unknown email costs no more than any other. If this
      // is refused (the app closing at once), the decoy is simply built on first use.
      deps.hasher.verifyDecoy('').catch(() => undefined);
      const cleanupMs = deps.config.passwordless_cleanup_interval_seconds * 1000;
      cleanup ??= startCleanupJob(cleanupMs, () => passwordless.deleteExpiredDevices(), deps.log);
      totpCleanup ??= startCleanupJob(TOTP_CLEANUP_INTERVAL_MS, () => totp.deleteExpiredCodes(), deps.log, 'used TOTP codes');
      webauthnCleanup ??= startCleanupJob(
        TOTP_CLEANUP_INTERVAL_MS,
        () => webauthn.deleteExpiredOptions(),
        deps.log,
        'expired passkey options',
      );
      if (deps.config.bulk_import_worker) bulkImportWorker.start();
      sessionBridge.start();
      multitenancy.start();
    },
    async stop() {
      await Promise.all([
        cleanup?.stop(),
        totpCleanup?.stop(),
        webauthnCleanup?.stop(),
        sessionCleanup?.stop(),
        keysLoading,
        bulkImportWorker.stop(),
        emailPassword.stop(),
        sessionBridge.stop(),
        multitenancy.stop(),
      ]);
    },
  };
}
