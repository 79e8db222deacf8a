// What may be logged of a database error: PostgreSQL's `detail` can quote the failing row, password hash included.
export function describeError(error: unknown): Record<string, unknown> {
  const { code, constraint, message, stack } = error as { code?: string; constraint?: string; message?: string; stack?: string };
  return { code, constraint, message, stack };
}

// Connection loss, deadlock/serialization, resource and shutdown errors: the whole batch rolls back and is retried
// later. Anything else is blamed on the data and only fails the users involved (a lost connection without a
// SQLSTATE fails again at the next savepoint and so also rolls the batch back).
export function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && ['08', '40', '53', '57', '58'].includes(code.slice(0, 2));
}
