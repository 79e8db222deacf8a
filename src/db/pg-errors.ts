// The one place that reads PostgreSQL's error codes: SQLSTATE classes and the constraint names of migrations/.
// Callers get a typed constraint name or a yes/no, never a raw code.

// Every named constraint and unique index of migrations/ that a statement can violate (test/db/pg-errors.test.ts
// checks each against the migration files).
export const constraintNames = [
  'users__pkey',
  'login_method_tenants__pkey',
  'login_method_tenants__email_key',
  'login_method_tenants__passwordless_phone_number_key',
  'login_method_tenants__thirdparty_key',
  'webauthn_credentials__pkey',
  'users__email_length_check',
  'users__third_party_id_length_check',
  'users__third_party_user_id_length_check',
  'user_id_mappings__pkey',
  'user_id_mappings__external_user_id_key',
  'user_id_mappings__user_id_fkey',
  'email_verifications__pkey',
  'email_verifications__user_id_fkey',
  'email_verification_tokens__pkey',
  'email_verification_tokens__user_id_fkey',
  'email_verification_tokens__tenant_id_fkey',
  'user_metadata__pkey',
  'roles__pkey',
  'user_roles__pkey',
  'user_roles__role_fkey',
  'role_permissions__pkey',
  'role_permissions__role_fkey',
  'totp_devices__pkey',
  'totp_used_codes__pkey',
  'recovery_codes__pkey',
  'passwordless_devices__pkey',
  'passwordless_codes__pkey',
  'passwordless_codes__link_code_hash_key',
  'passwordless_codes__device_fkey',
  'bulk_import_users__pkey',
  'user_groups__pkey',
  'user_ids__pkey',
  'user_ids__group_id_fkey',
  'primary_account_infos__info_key',
  'dashboard_users__email_key',
] as const;

// Rules a trigger holds rather than a constraint: migration 0016 raises unique_violation under the first two names,
// migration 0049 foreign_key_violation under the last (a membership naming a tenant that is gone).
export const triggerRuleNames = [
  'user_id_mappings__external_user_id_not_user_id',
  'user_ids__user_id_not_external_user_id',
  'login_method_tenants__tenant_id_fkey',
] as const;

export type ConstraintName = (typeof constraintNames)[number] | (typeof triggerRuleNames)[number];

const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';

interface PgErrorFields {
  code?: unknown;
  constraint?: unknown;
}

function fieldsOf(error: unknown): PgErrorFields {
  return typeof error === 'object' && error !== null ? (error as PgErrorFields) : {};
}

/** The unique constraint or index a failed statement hit, if that is why it failed. */
export function uniqueViolationOf(error: unknown): ConstraintName | undefined {
  const { code, constraint } = fieldsOf(error);
  return code === UNIQUE_VIOLATION ? (constraint as ConstraintName) : undefined;
}

/** The foreign key a failed statement broke, if that is why it failed. */
export function foreignKeyViolationOf(error: unknown): ConstraintName | undefined {
  const { code, constraint } = fieldsOf(error);
  return code === FOREIGN_KEY_VIOLATION ? (constraint as ConstraintName) : undefined;
}

/** Whichever named constraint a failed statement broke (unique, foreign key or check). */
export function violatedConstraintOf(error: unknown): ConstraintName | undefined {
  const { constraint } = fieldsOf(error);
  return typeof constraint === 'string' ? (constraint as ConstraintName) : undefined;
}

// What may be logged of a database error: PostgreSQL's `detail` can quote the failing row, password hash included.
export function describeError(error: unknown): Record<string, unknown> {
  const { code, constraint, message, stack } = error as { code?: string; constraint?: string; message?: string; stack?: string };
  return { code, constraint, message, stack };
}

// pg-pool gives these no SQLSTATE: every pooled connection stayed busy for the pool's connection timeout, or
// opening a new one took that long. The server's own "too many connections" (53300) is the same overload.
const connectionWaitMessages = new Set(['timeout exceeded when trying to connect', 'Connection terminated due to connection timeout']);

/** A request waited too long for a database connection: an overload to retry later, not a failure. */
export function isConnectionWaitTimeout(error: unknown): boolean {
  const { code } = fieldsOf(error);
  if (code === '53300') return true;
  return error instanceof Error && code === undefined && connectionWaitMessages.has(error.message);
}

const READ_ONLY_TRANSACTION = '25006';

/** The server refused a write because it is a standby (it was one, or became one after a failover). */
export function isStandbyRefusal(error: unknown): boolean {
  return fieldsOf(error).code === READ_ONLY_TRANSACTION;
}

// Refusals that come at once, so the next host can be tried within the same wait: nothing listens on the port,
// the name does not resolve, or PostgreSQL is starting up or shutting down (57P03).
const quickNetworkFailures = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', '57P03']);

export function isQuickHostFailure(error: unknown): boolean {
  const { code } = fieldsOf(error);
  return typeof code === 'string' && quickNetworkFailures.has(code);
}

// pg gives these no code: the server or the pooler closed the connection, or stopped answering a query.
const lostConnectionMessages = new Set([
  'Connection terminated unexpectedly',
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Query read timeout',
]);
const lostSocketCodes = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/**
 * The database cannot serve now, whatever the request: no connection within the wait, no server reachable, the
 * server restarting or shutting down (class 57P), a connection failure (class 08, also PgBouncer's own refusals),
 * too many connections (53300), or a standby answering a write during a failover (25006). Answered 503.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (isConnectionWaitTimeout(error) || isQuickHostFailure(error) || isStandbyRefusal(error)) return true;
  const { code } = fieldsOf(error);
  if (typeof code === 'string' && (code.startsWith('08') || code.startsWith('57P') || lostSocketCodes.has(code))) return true;
  return error instanceof Error && code === undefined && lostConnectionMessages.has(error.message);
}

// Connection loss, deadlock/serialization, resource and shutdown errors: the whole batch rolls back and is retried
// later. Anything else is blamed on the data and only fails the users involved (a lost connection without a
// SQLSTATE fails again at the next savepoint and so also rolls the batch back).
export function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (isDatabaseUnavailable(error)) return true;
  return typeof code === 'string' && ['08', '40', '53', '57', '58'].includes(code.slice(0, 2));
}
