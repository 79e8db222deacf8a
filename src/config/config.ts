import type { CdiVersion } from '../http/cdi-version.js';
import type { LazyMigrationConfig } from '../lazy-migration/config.js';
import type { SessionBridgeConfig } from '../session-bridge/config.js';
import type { TotpSecretKey } from './totp-secret-keys.js';

export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'NONE';

// Settings after loading and validation; names are the config.yaml keys.
export interface Config {
  port: number;
  host: string;
  base_path: string;
  api_keys: string[] | undefined;
  log_level: LogLevel;
  max_server_pool_size: number;
  body_limit_bytes: number;
  bulk_import_body_limit_bytes: number;
  request_timeout_ms: number;
  shutdown_grace_ms: number;
  max_cdi_version: CdiVersion;
  min_cdi_version: CdiVersion | undefined;
  metrics_port: number | undefined;
  ip_allow_regex: RegExp | undefined;
  ip_deny_regex: RegExp | undefined;

  postgresql_connection_uri: string | undefined;
  postgresql_host: string | undefined;
  postgresql_port: number | undefined;
  postgresql_user: string | undefined;
  postgresql_password: string | undefined;
  postgresql_database_name: string | undefined;
  postgresql_connection_pool_size: number;
  postgresql_query_timeout_ms: number;
  postgresql_connection_timeout_ms: number;
  postgresql_pool_mode: 'session' | 'transaction';
  postgresql_table_schema: string;
  allow_embedded_database: boolean;
  embedded_data_dir: string;

  password_reset_token_lifetime: number;
  email_verification_token_lifetime: number;
  webauthn_rp_ids: string | undefined;
  webauthn_origins: string | undefined;
  webauthn_recover_account_token_lifetime: number;
  passwordless_code_lifetime: number;
  passwordless_max_code_input_attempts: number;
  passwordless_cleanup_interval_seconds: number;
  totp_max_attempts: number;
  totp_rate_limit_cooldown_sec: number;
  totp_min_imported_secret_bits: number;
  bulk_import_totp_requires_factor: boolean;
  totp_secret_keys: TotpSecretKey[];
  recovery_code_failures_per_client: number;

  password_hashing_alg: 'BCRYPT' | 'ARGON2';
  bcrypt_log_rounds: number;
  argon2_iterations: number;
  argon2_memory_kb: number;
  argon2_parallelism: number;
  argon2_hashing_pool_size: number;
  bcrypt_hashing_pool_size: number;
  idp_password_hashing_signer_key: string | undefined;
  idp_password_hashing_signer_keys: string | undefined;
  idp_password_hashing_pool_size: number;
  imported_hash_max_memory_kib: number;
  imported_hash_max_argon2_work_kib: number;
  imported_hash_max_bcrypt_cost: number;
  imported_hash_max_pbkdf2_iterations: number;
  imported_hash_max_crypt_rounds: number;
  password_rehash_on_signin: boolean;
  password_verification_concurrency: number;
  password_verification_memory_budget_mb: number;
  password_verification_queue_limit: number;
  password_verification_deadline_ms: number;
  signin_failure_min_duration_ms: number;
  costly_signin_failures_per_account: number;
  costly_signin_failures_per_client: number;

  bulk_migration_batch_size: number;
  bulk_migration_parallelism: number;
  bulk_migration_sleep_between_rounds_in_batch_ms: number;
  bulk_import_interval_seconds: number;
  bulk_import_worker: boolean;

  access_token_validity: number;
  refresh_token_validity: number;
  access_token_dynamic_signing_key_update_interval: number;
  access_token_validity_jitter: number;
  refresh_token_rotation_grace_period: number;
  recent_token_reuse_behaviour: 'TOKEN_THEFT' | 'UNAUTHORISED';
  access_token_signing_key_dynamic: boolean;
  access_token_blacklisting: boolean;
  dashboard_session_validity_ms: number;

  lazy_migration: LazyMigrationConfig;
  session_bridge: SessionBridgeConfig;
}
