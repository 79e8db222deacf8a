// The one module allowed to write each table (INSERT, UPDATE, DELETE): its repository holds the statements, or the
// statement fragments other modules compose into one round trip. Everyone else calls it. A new table gets its line
// here; a table written only by triggers or its migration is named with the module whose data it is.
export const tableOwners: Readonly<Record<string, string>> = {
  users: 'users',
  user_id_mappings: 'users',
  // The first membership of a login method is written by the users trigger of migration 0043.
  login_method_tenants: 'users',
  user_ids: 'account-linking',
  user_groups: 'account-linking',
  // Kept by the users triggers of migration 0011.
  primary_account_infos: 'account-linking',
  email_verifications: 'recipes/emailverification',
  email_verification_tokens: 'recipes/emailverification',
  emailpassword_reset_tokens: 'recipes/emailpassword',
  signin_failure_windows: 'recipes/emailpassword',
  passwordless_codes: 'recipes/passwordless',
  passwordless_devices: 'recipes/passwordless',
  session_info: 'recipes/session',
  user_metadata: 'recipes/usermetadata',
  roles: 'recipes/userroles',
  role_permissions: 'recipes/userroles',
  user_roles: 'recipes/userroles',
  totp_devices: 'recipes/totp',
  totp_used_codes: 'recipes/totp',
  recovery_codes: 'recipes/totp',
  webauthn_credentials: 'recipes/webauthn',
  webauthn_options: 'recipes/webauthn',
  webauthn_recover_tokens: 'recipes/webauthn',
  dashboard_users: 'recipes/dashboard',
  dashboard_sessions: 'recipes/dashboard',
  tenants: 'recipes/multitenancy',
  tenant_thirdparty_providers: 'recipes/multitenancy',
  jwt_signing_keys: 'keys',
  key_value: 'keys',
  session_access_token_signing_keys: 'keys',
  bulk_import_users: 'bulk-import',
  // Written once by its migration; read by the migration-support routes.
  core_identity: 'bulk-import',
  lazy_migration_attempts: 'lazy-migration',
  lazy_migration_leases: 'lazy-migration',
  // Written by the adoption trigger of migration 0010.
  lazy_migration_events: 'lazy-migration',
  session_bridge_exchanges: 'session-bridge',
  session_bridge_refusals: 'session-bridge',
};
