// The only place error codes, their HTTP statuses and public messages are defined.
// Business outcomes (WRONG_CREDENTIALS_ERROR, ...) are not errors: services return them with 200.

const catalog = {
  INVALID_JSON: { status: 400, message: () => 'Invalid Json Input' },
  INVALID_JSON_AT: {
    status: 400,
    message: (problem: string, line: number, column: number) => `Invalid Json Input: ${problem} at line ${line}, column ${column}`,
  },
  INVALID_FIELD: { status: 400, message: (field: string) => `Field name '${field}' is invalid in JSON input` },
  JSON_TOO_DEEP: {
    status: 400,
    message: (field: string, limit: number) => `Field name '${field}' is nested deeper than ${limit} levels in JSON input`,
  },
  MISSING_QUERY_FIELD: { status: 400, message: (field: string) => `Field name '${field}' is missing in GET request` },
  QUERY_FIELD_NOT_INT: { status: 400, message: (field: string) => `Field name '${field}' must be an int in the GET request` },
  TOO_MANY_ELEMENTS: {
    status: 400,
    message: (field: string, max: number) => `Field name '${field}' cannot contain more than ${max} elements`,
  },
  BAD_INPUT: { status: 400, message: (text: string) => text },
  INVALID_EMAIL: { status: 400, message: (field: string, reason: string) => `${field} is not a valid email address: ${reason}` },
  RID_PASSWORDLESS_REQUIRED: { status: 400, message: (reason: string) => `Header 'rid: passwordless' is required: ${reason}` },
  INVALID_PHONE_NUMBER: {
    status: 400,
    message: (field: string) => `${field} must be in international format with a leading + and country code, e.g. +14155552671`,
  },
  PASSWORD_HASH_EMPTY: { status: 400, message: () => 'Password hash cannot be an empty string' },
  HASHING_ALGORITHM_EMPTY: { status: 400, message: () => 'Hashing Algorithm cannot be an empty string' },
  // §6.1's text, then the accepted values, so a typo is fixed without reading the documentation.
  HASHING_ALGORITHM_UNSUPPORTED: {
    status: 400,
    message: (accepted: string) => `Unsupported password hashing algorithm: use one of ${accepted} (any case)`,
  },
  // `formatMessage` is §6.1's text for the named algorithm (or the generic one); the reason follows it.
  PASSWORD_HASH_INVALID: {
    status: 400,
    message: (formatMessage: string, reason?: string) => (reason === undefined ? formatMessage : `${formatMessage}: ${reason}`),
  },
  CDI_VERSION_INVALID: { status: 400, message: () => 'cdi-version header is invalid' },
  CDI_VERSION_NOT_SUPPORTED: { status: 400, message: (version: string) => `cdi-version ${version} not supported` },
  CDI_VERSION_TOO_LOW: {
    status: 400,
    message: (version: string, minimum: string) => `cdi-version ${version} is lower than the minimum allowed version ${minimum}`,
  },
  TENANT_NOT_FOUND: {
    status: 400,
    message: (appId: string, tenantId: string) =>
      `AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, ${appId}, ${tenantId})`,
  },
  INVALID_API_KEY: { status: 401, message: () => 'Invalid API key' },
  APP_SPECIFIC_API: { status: 403, message: () => 'Only public tenantId can call this app specific API' },
  IP_NOT_ALLOWED: { status: 403, message: () => 'IP address not allowed' },
  NOT_FOUND: { status: 404, message: () => 'Not found' },
  METHOD_NOT_SUPPORTED: { status: 405, message: () => 'Method not supported' },
  BODY_TOO_LARGE: { status: 413, message: (limit: number) => `Request body is larger than the limit of ${limit} bytes` },
  SIGNER_KEY_MISSING: {
    status: 500,
    message: () => `'idp_password_hashing_signer_key' is not configured: set it in config.yaml or IDP_PASSWORD_HASHING_SIGNER_KEY`,
  },
  INTERNAL: { status: 500, message: () => 'Internal Error' },
  LEGACY_VERIFY_UNAVAILABLE: { status: 503, message: () => 'Legacy password verification is unavailable; try again later' },
  VERIFICATION_BUSY: {
    status: 503,
    message: (retryAfterSeconds: number) => `Password verification is busy, retry after ${retryAfterSeconds} seconds`,
  },
} as const;

export type ErrorCode = keyof typeof catalog;
export const errorCodes = Object.keys(catalog) as ErrorCode[];

// The input field an error is about (the log carries it as `field`, never the value): the first message argument,
// or the one field the code is always about.
const firstArgument = (args: unknown[]) => String(args[0]);
const fieldOf: Partial<Record<ErrorCode, (args: unknown[]) => string>> = {
  INVALID_FIELD: firstArgument,
  MISSING_QUERY_FIELD: firstArgument,
  QUERY_FIELD_NOT_INT: firstArgument,
  TOO_MANY_ELEMENTS: firstArgument,
  PASSWORD_HASH_EMPTY: () => 'passwordHash',
  PASSWORD_HASH_INVALID: () => 'passwordHash',
  HASHING_ALGORITHM_EMPTY: () => 'hashingAlgorithm',
  HASHING_ALGORITHM_UNSUPPORTED: () => 'hashingAlgorithm',
};

type MessageArgs<C extends ErrorCode> = Parameters<(typeof catalog)[C]['message']>;

export class CoreError extends Error {
  readonly statusCode: number;
  // The input field the error is about, when it is about one (never its value).
  field?: string;
  /** Sent as Retry-After with a 503. */
  retryAfterSeconds?: number;
  constructor(
    readonly code: ErrorCode,
    readonly publicMessage: string,
    // A JSON body replaces the plain-text message (bulk import answers its 400s as JSON).
    readonly jsonBody?: object,
    options?: { cause?: unknown },
  ) {
    super(publicMessage, options);
    this.statusCode = catalog[code].status;
  }
}

export function coreError<C extends ErrorCode>(code: C, ...args: MessageArgs<C>): CoreError {
  const message = (catalog[code].message as (...values: unknown[]) => string)(...args);
  const error = new CoreError(code, message);
  error.field = fieldOf[code]?.(args);
  return error;
}

/** The public text of a catalog entry, for code that reports it inside a result rather than throwing. */
export function errorMessage<C extends ErrorCode>(code: C, ...args: MessageArgs<C>): string {
  return (catalog[code].message as (...values: unknown[]) => string)(...args);
}

/** 503 with Retry-After: the password-verification queue is full, its wait ran out, or the core is stopping. */
export function busyError(retryAfterSeconds: number): CoreError {
  const error = coreError('VERIFICATION_BUSY', retryAfterSeconds);
  error.retryAfterSeconds = retryAfterSeconds;
  return error;
}

export function badInput(message: string, field?: string): CoreError {
  const error = coreError('BAD_INPUT', message);
  error.field = field;
  return error;
}

/** The old provider of a pending user could not answer; the client is told when to try again. */
export function legacyUnavailable(retryAfterMs: number): CoreError {
  const error = coreError('LEGACY_VERIFY_UNAVAILABLE');
  error.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return error;
}
export const invalidField = (field: string) => coreError('INVALID_FIELD', field);

export function jsonBadInput(body: object): CoreError {
  return new CoreError('BAD_INPUT', JSON.stringify(body), body);
}

export function errorStatus(code: ErrorCode): number {
  return catalog[code].status;
}
