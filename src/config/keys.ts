import os from 'node:os';
import { Type, type TSchema } from '@sinclair/typebox';

export interface ConfigKey {
  name: string;
  env: string[];
  aliases?: string[];
  schema: TSchema;
  default?: unknown;
  // How the default is documented when it depends on the machine.
  defaultText?: string;
  description: string;
}

const cpuCount = Math.max(1, os.availableParallelism());
const Int = (minimum?: number) => Type.Integer(minimum === undefined ? {} : { minimum });
const Str = () => Type.String();

// The one list of settings: config loading, config.yaml and docs/configuration.md are all checked against it.
export const configKeys: ConfigKey[] = [
  { name: 'port', env: ['PORT', 'SUPERTOKENS_PORT'], schema: Int(0), default: 3567, description: 'HTTP port' },
  {
    name: 'host',
    env: ['HOST', 'SUPERTOKENS_HOST'],
    schema: Str(),
    default: 'localhost',
    description: 'interface to listen on (the container image sets 0.0.0.0)',
  },
  { name: 'base_path', env: ['BASE_PATH'], schema: Str(), default: '', description: 'global path prefix, e.g. /auth' },
  {
    name: 'api_keys',
    env: ['API_KEYS'],
    schema: Str(),
    description: 'comma-separated API keys (>= 20 chars of A-Z a-z 0-9 = -); unset = no API-key check',
  },
  { name: 'log_level', env: ['LOG_LEVEL'], schema: Str(), default: 'INFO', description: 'DEBUG, INFO, WARN, ERROR or NONE' },
  {
    name: 'max_server_pool_size',
    env: ['MAX_SERVER_POOL_SIZE'],
    schema: Int(1),
    default: 10,
    description: 'upper bound for argon2_hashing_pool_size (the reference core sizes its request threads with it)',
  },
  {
    name: 'body_limit_bytes',
    env: ['BODY_LIMIT_BYTES'],
    schema: Int(1024),
    default: 1048576,
    description: 'largest request body accepted (bulk import has its own limit)',
  },
  {
    name: 'bulk_import_body_limit_bytes',
    env: ['BULK_IMPORT_BODY_LIMIT_BYTES'],
    schema: Int(1024),
    default: 67108864,
    description: 'largest body accepted by POST /bulk-import/users',
  },
  {
    name: 'request_timeout_ms',
    env: ['REQUEST_TIMEOUT_MS'],
    schema: Int(0),
    default: 120000,
    description: 'time a client has to send a whole request',
  },
  {
    name: 'shutdown_grace_ms',
    env: ['SHUTDOWN_GRACE_MS'],
    schema: Int(0),
    default: 10000,
    description: 'after SIGTERM/SIGINT, time in-flight requests get before the process exits anyway',
  },
  {
    name: 'supertokens_max_cdi_version',
    env: ['SUPERTOKENS_MAX_CDI_VERSION'],
    schema: Str(),
    description: 'newest cdi-version served (default 5.6)',
  },
  { name: 'supertokens_min_cdi_version', env: ['SUPERTOKENS_MIN_CDI_VERSION'], schema: Str(), description: 'oldest cdi-version accepted' },
  {
    name: 'metrics_port',
    env: ['METRICS_PORT'],
    schema: Int(0),
    description: 'serve GET /metrics on this port only, without API key (unset: on the main port, API key required)',
  },
  { name: 'ip_allow_regex', env: ['IP_ALLOW_REGEX'], schema: Str(), description: 'only client IPs matching this regex are served' },
  { name: 'ip_deny_regex', env: ['IP_DENY_REGEX'], schema: Str(), description: 'client IPs matching this regex get 403' },

  {
    name: 'postgresql_connection_uri',
    env: ['POSTGRESQL_CONNECTION_URI', 'DATABASE_URL'],
    schema: Str(),
    description:
      'external PostgreSQL; a libpq host list (postgresql://h1:5432,h2:5432/db?target_session_attrs=read-write) connects to whichever host is the primary; unset (with postgresql_host unset) = embedded PostgreSQL',
  },
  {
    name: 'postgresql_host',
    env: ['POSTGRESQL_HOST'],
    schema: Str(),
    description: 'external PostgreSQL host, or hosts separated by commas (overrides the URI part)',
  },
  { name: 'postgresql_port', env: ['POSTGRESQL_PORT'], schema: Int(1), description: 'external PostgreSQL port (default 5432)' },
  { name: 'postgresql_user', env: ['POSTGRESQL_USER'], schema: Str(), description: 'external PostgreSQL user' },
  { name: 'postgresql_password', env: ['POSTGRESQL_PASSWORD'], schema: Str(), description: 'external PostgreSQL password' },
  {
    name: 'postgresql_database_name',
    env: ['POSTGRESQL_DATABASE_NAME'],
    schema: Str(),
    description: 'external PostgreSQL database (default supertokens)',
  },
  {
    name: 'postgresql_connection_pool_size',
    env: ['POSTGRESQL_CONNECTION_POOL_SIZE'],
    schema: Int(1),
    default: 10,
    description: 'connections in the pool',
  },
  {
    name: 'postgresql_query_timeout_ms',
    env: ['POSTGRESQL_QUERY_TIMEOUT_MS'],
    schema: Int(1),
    default: 60000,
    description: 'a query with no answer after this long fails (a database that stopped answering)',
  },
  {
    name: 'postgresql_connection_timeout_ms',
    env: ['POSTGRESQL_CONNECTION_TIMEOUT_MS'],
    schema: Int(1),
    default: 5000,
    description: 'longest wait of a request for a database connection (pooled or new) before 503 with Retry-After',
  },
  {
    name: 'postgresql_pool_mode',
    env: ['POSTGRESQL_POOL_MODE'],
    schema: Str(),
    default: 'session',
    description:
      "'session' (no pooler, or a pooler in session mode: named prepared statements, schema set once per connection) or 'transaction' (a transaction pooler such as PgBouncer pool_mode=transaction: unnamed statements, schema set in every transaction)",
  },
  {
    name: 'postgresql_table_schema',
    env: ['POSTGRESQL_TABLE_SCHEMA'],
    schema: Str(),
    default: 'public',
    description: 'schema holding the tables (created if missing)',
  },
  {
    name: 'allow_embedded_database',
    env: ['ALLOW_EMBEDDED_DATABASE'],
    schema: Type.Boolean(),
    default: true,
    description: 'with no PostgreSQL configured, start the embedded one (false: refuse to start; the container image sets false)',
  },
  {
    name: 'embedded_data_dir',
    env: ['EMBEDDED_DATA_DIR'],
    schema: Str(),
    default: './data',
    description: 'data folder of the embedded PostgreSQL',
  },

  {
    name: 'password_reset_token_lifetime',
    env: ['PASSWORD_RESET_TOKEN_LIFETIME'],
    schema: Int(1),
    default: 3600000,
    description: 'ms a password reset token stays valid',
  },
  {
    name: 'webauthn_rp_ids',
    env: ['WEBAUTHN_RP_IDS'],
    schema: Str(),
    description:
      'comma-separated relying-party ids passkeys are made and imported for; unset = options for any RP ID, and no passkey import',
  },
  {
    name: 'webauthn_origins',
    env: ['WEBAUTHN_ORIGINS'],
    schema: Str(),
    description: 'comma-separated origins a passkey ceremony may come from; unset = any origin on the RP ID or a subdomain of it',
  },
  {
    name: 'webauthn_recover_account_token_lifetime',
    env: ['WEBAUTHN_RECOVER_ACCOUNT_TOKEN_LIFETIME'],
    schema: Int(1),
    default: 3600000,
    description: 'ms a passkey account-recovery token stays valid',
  },
  {
    name: 'email_verification_token_lifetime',
    env: ['EMAIL_VERIFICATION_TOKEN_LIFETIME'],
    schema: Int(1),
    default: 86400000,
    description: 'ms an email verification token stays valid',
  },
  {
    name: 'passwordless_code_lifetime',
    env: ['PASSWORDLESS_CODE_LIFETIME'],
    schema: Int(),
    default: 900000,
    description: 'ms a passwordless code stays valid',
  },
  {
    name: 'passwordless_max_code_input_attempts',
    env: ['PASSWORDLESS_MAX_CODE_INPUT_ATTEMPTS'],
    schema: Int(),
    default: 5,
    description: 'wrong codes before a device is deleted',
  },
  {
    name: 'totp_max_attempts',
    env: ['TOTP_MAX_ATTEMPTS'],
    schema: Int(),
    default: 5,
    description: 'wrong TOTP or recovery codes in a row before verification is locked for the cooldown',
  },
  {
    name: 'totp_rate_limit_cooldown_sec',
    env: ['TOTP_RATE_LIMIT_COOLDOWN_SEC'],
    schema: Int(),
    default: 900,
    description: 'seconds TOTP verification stays locked after totp_max_attempts wrong codes',
  },
  {
    name: 'totp_min_imported_secret_bits',
    env: ['TOTP_MIN_IMPORTED_SECRET_BITS'],
    schema: Int(),
    default: 80,
    description: 'shortest imported TOTP key accepted, in bits (64 to 160)',
  },
  {
    name: 'totp_secret_keys',
    env: ['TOTP_SECRET_KEYS'],
    schema: Str(),
    description:
      'comma-separated <id>:<base64 of 32 bytes> keys that encrypt TOTP secrets at rest (AES-256-GCM); the last one encrypts, any decrypts; unset: see docs/metadata-roles-totp.md',
  },
  {
    name: 'recovery_code_failures_per_client',
    env: ['RECOVERY_CODE_FAILURES_PER_CLIENT'],
    schema: Int(1),
    default: 20,
    description:
      'failed recovery-code checks against bcrypt digests a minute from one client address; more answer 429 with Retry-After without checking',
  },
  {
    name: 'bulk_import_totp_requires_factor',
    env: ['BULK_IMPORT_TOTP_REQUIRES_FACTOR'],
    schema: Type.Boolean(),
    default: true,
    description: "bulk import adds _supertokens.requiredSecondaryFactors ['totp'] to the metadata of a user imported with a TOTP device",
  },
  {
    name: 'passwordless_cleanup_interval_seconds',
    env: ['PASSWORDLESS_CLEANUP_INTERVAL_SECONDS'],
    schema: Int(1),
    default: 3600,
    description: 'how often devices whose codes all expired are deleted',
  },

  {
    name: 'password_hashing_alg',
    env: ['PASSWORD_HASHING_ALG'],
    schema: Str(),
    default: 'BCRYPT',
    description: 'algorithm for new hashes: BCRYPT or ARGON2',
  },
  { name: 'bcrypt_log_rounds', env: ['BCRYPT_LOG_ROUNDS'], schema: Int(), default: 11, description: 'bcrypt cost for new hashes' },
  { name: 'argon2_iterations', env: ['ARGON2_ITERATIONS'], schema: Int(), default: 1, description: 'argon2id time cost for new hashes' },
  {
    name: 'argon2_memory_kb',
    env: ['ARGON2_MEMORY_KB'],
    schema: Int(),
    default: 87795,
    description: 'argon2id memory (KiB) for new hashes',
  },
  { name: 'argon2_parallelism', env: ['ARGON2_PARALLELISM'], schema: Int(), default: 2, description: 'argon2id lanes for new hashes' },
  {
    name: 'argon2_hashing_pool_size',
    env: ['ARGON2_HASHING_POOL_SIZE'],
    schema: Int(),
    default: cpuCount,
    defaultText: 'number of CPUs',
    description: 'argon2 operations among password_verification_concurrency (a cap, no slots of its own)',
  },
  {
    name: 'bcrypt_hashing_pool_size',
    env: ['BCRYPT_HASHING_POOL_SIZE'],
    schema: Int(1),
    default: cpuCount,
    defaultText: 'number of CPUs',
    description: 'bcrypt operations among password_verification_concurrency (a cap)',
  },
  {
    name: 'idp_password_hashing_signer_key',
    env: ['IDP_PASSWORD_HASHING_SIGNER_KEY', 'FIREBASE_PASSWORD_HASHING_SIGNER_KEY'],
    aliases: ['firebase_password_hashing_signer_key'],
    schema: Str(),
    description: 'base64 signer key of the platform that exported $f_scrypt$ hashes',
  },
  {
    name: 'idp_password_hashing_signer_keys',
    env: ['IDP_PASSWORD_HASHING_SIGNER_KEYS'],
    schema: Str(),
    description:
      'comma-separated <name>:<base64 signer key> of several exporting projects or tenants; a $f_scrypt$ hash ending $k=<name> is verified with that key',
  },
  {
    name: 'idp_password_hashing_pool_size',
    env: ['IDP_PASSWORD_HASHING_POOL_SIZE', 'FIREBASE_PASSWORD_HASHING_POOL_SIZE'],
    aliases: ['firebase_password_hashing_pool_size'],
    schema: Int(1),
    default: cpuCount,
    defaultText: 'number of CPUs',
    description: 'scrypt verifications among password_verification_concurrency (a cap)',
  },
  {
    name: 'password_verification_concurrency',
    env: ['PASSWORD_VERIFICATION_CONCURRENCY'],
    schema: Int(1),
    default: cpuCount,
    defaultText: 'number of CPUs',
    description: 'hash/verify operations running at once, all algorithms together; the thread pool gets 2 threads more',
  },
  {
    name: 'password_verification_memory_budget_mb',
    env: ['PASSWORD_VERIFICATION_MEMORY_BUDGET_MB'],
    schema: Int(1),
    default: 512,
    description: 'MiB that the running hash/verify operations may allocate together',
  },
  {
    name: 'password_verification_queue_limit',
    env: ['PASSWORD_VERIFICATION_QUEUE_LIMIT'],
    schema: Int(1),
    default: 1000,
    description: 'hash/verify operations waiting at once; more answer 503 at once',
  },
  {
    name: 'password_verification_deadline_ms',
    env: ['PASSWORD_VERIFICATION_DEADLINE_MS'],
    schema: Int(1),
    default: 5000,
    description: 'longest wait of a sign-in or sign-up for a hashing slot before 503 with Retry-After',
  },
  {
    name: 'signin_failure_min_duration_ms',
    env: ['SIGNIN_FAILURE_MIN_DURATION_MS'],
    schema: Int(0),
    default: 400,
    description:
      'a failed sign-in answers no sooner than this after it arrived, or than the slowest of the last 50 sign-ins of its cost class (0 = off)',
  },
  {
    name: 'costly_signin_failures_per_account',
    env: ['COSTLY_SIGNIN_FAILURES_PER_ACCOUNT'],
    schema: Int(1),
    default: 5,
    description: 'failed sign-ins a minute at one account whose hash is costly; more answer 429 with Retry-After without verifying',
  },
  {
    name: 'costly_signin_failures_per_client',
    env: ['COSTLY_SIGNIN_FAILURES_PER_CLIENT'],
    schema: Int(1),
    default: 20,
    description: 'failed sign-ins a minute against costly hashes from one client address; more answer 429 with Retry-After',
  },
  {
    name: 'imported_hash_max_memory_kib',
    env: ['IMPORTED_HASH_MAX_MEMORY_KIB'],
    schema: Int(1),
    default: 131072,
    description: 'largest memory (KiB) one imported hash may need to verify (argon2 m, scrypt 128·N·r·p)',
  },
  {
    name: 'imported_hash_max_argon2_work_kib',
    env: ['IMPORTED_HASH_MAX_ARGON2_WORK_KIB'],
    schema: Int(1),
    default: 262144,
    description: 'largest argon2 m × t (KiB × passes) of an imported hash',
  },
  {
    name: 'imported_hash_max_bcrypt_cost',
    env: ['IMPORTED_HASH_MAX_BCRYPT_COST'],
    schema: Int(4),
    default: 13,
    description: 'largest bcrypt cost of an imported hash (also inside bcrypt-sha256)',
  },
  {
    name: 'imported_hash_max_pbkdf2_iterations',
    env: ['IMPORTED_HASH_MAX_PBKDF2_ITERATIONS'],
    schema: Int(1),
    default: 1500000,
    description: 'largest PBKDF2 iterations × output blocks of an imported hash',
  },
  {
    name: 'imported_hash_max_crypt_rounds',
    env: ['IMPORTED_HASH_MAX_CRYPT_ROUNDS'],
    schema: Int(1000),
    default: 700000,
    description: 'largest SHA-crypt ($5$, $6$) rounds of an imported hash',
  },
  {
    name: 'password_rehash_on_signin',
    env: ['PASSWORD_REHASH_ON_SIGNIN'],
    schema: Type.Boolean(),
    default: false,
    description: 'rewrite an imported hash with the configured algorithm after a successful sign-in',
  },

  {
    name: 'bulk_migration_batch_size',
    env: ['BULK_MIGRATION_BATCH_SIZE'],
    schema: Int(1),
    default: 8000,
    description: 'queue rows claimed per batch',
  },
  {
    name: 'bulk_migration_parallelism',
    env: ['BULK_MIGRATION_PARALLELISM'],
    schema: Int(1),
    default: cpuCount,
    defaultText: 'number of CPUs',
    description:
      "import transactions at once: the worker's batches, and those of all importNow requests together (twice as many importNow requests are let in at once; more get 503)",
  },
  {
    name: 'bulk_migration_sleep_between_rounds_in_batch_ms',
    env: ['BULK_MIGRATION_SLEEP_BETWEEN_ROUNDS_IN_BATCH_MS'],
    schema: Int(0),
    default: 1000,
    description: 'pause before a batch that rolled back (a lost connection, a deadlock) is tried again',
  },
  {
    name: 'bulk_import_interval_seconds',
    env: ['BULK_IMPORT_INTERVAL_SECONDS'],
    schema: Int(1),
    default: 60,
    description: 'sweep interval that also picks up rows left PROCESSING by a crash',
  },
  {
    name: 'bulk_import_worker',
    env: ['BULK_IMPORT_WORKER'],
    schema: Type.Boolean(),
    default: true,
    description: 'import queued users in this core (false: only queue them, for another core on the database to import)',
  },

  {
    name: 'access_token_validity',
    env: ['ACCESS_TOKEN_VALIDITY'],
    schema: Int(),
    default: 3600,
    description: 'seconds an access token is valid (1 to 86400000)',
  },
  {
    name: 'refresh_token_validity',
    env: ['REFRESH_TOKEN_VALIDITY'],
    schema: Int(),
    default: 144000,
    description: 'minutes a session (its refresh token) lasts without a refresh; must exceed access_token_validity',
  },
  {
    name: 'access_token_dynamic_signing_key_update_interval',
    env: ['ACCESS_TOKEN_DYNAMIC_SIGNING_KEY_UPDATE_INTERVAL'],
    aliases: ['access_token_signing_key_update_interval'],
    schema: Type.Number(),
    default: 168,
    description: 'hours a dynamic access-token signing key signs before the next one takes over (a positive number, fractions allowed)',
  },
  {
    name: 'access_token_validity_jitter',
    env: ['ACCESS_TOKEN_VALIDITY_JITTER'],
    schema: Type.Number(),
    default: 0.05,
    description: 'share of access_token_validity a new access token may be shortened by, at random (0 to 0.25)',
  },
  {
    name: 'refresh_token_rotation_grace_period',
    env: ['REFRESH_TOKEN_ROTATION_GRACE_PERIOD'],
    schema: Int(),
    default: 30,
    description: 'cdi 5.6: seconds a just-rotated refresh token may be used again (0 to 300)',
  },
  {
    name: 'recent_token_reuse_behaviour',
    env: ['RECENT_TOKEN_REUSE_BEHAVIOUR'],
    schema: Str(),
    default: 'TOKEN_THEFT',
    description: 'cdi 5.6: a reused recent refresh token answers TOKEN_THEFT (TOKEN_THEFT_DETECTED) or UNAUTHORISED',
  },
  {
    name: 'access_token_signing_key_dynamic',
    env: ['ACCESS_TOKEN_SIGNING_KEY_DYNAMIC'],
    schema: Type.Boolean(),
    default: true,
    description: 'accepted and ignored (cdi < 2.21 only; the request chooses the key)',
  },
  {
    name: 'access_token_blacklisting',
    env: ['ACCESS_TOKEN_BLACKLISTING'],
    schema: Type.Boolean(),
    default: false,
    description: 'accepted and ignored (cdi < 2.21 only; verify checks the database when the SDK asks)',
  },
  {
    name: 'dashboard_session_validity_ms',
    env: ['DASHBOARD_SESSION_VALIDITY_MS'],
    schema: Int(1),
    default: 2592000000,
    description: 'ms a dashboard session (POST /recipe/dashboard/signin) stays valid; the periodic session sweep deletes it after',
  },

  {
    name: 'lazy_migration',
    env: ['LAZY_MIGRATION'],
    schema: Type.Unknown(),
    description:
      'sources that verify passwords of users imported without a hash, at their first sign-in (a mapping; see "Migrating without hashes"; as JSON in the environment)',
  },
  {
    name: 'session_bridge',
    env: ['SESSION_BRIDGE'],
    schema: Type.Unknown(),
    description:
      'old providers whose valid tokens are exchanged once for the imported user they name (a mapping; see [docs/session-bridge.md](docs/session-bridge.md); as JSON in the environment)',
  },
];
