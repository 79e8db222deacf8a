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
  FIELD_EMPTY: { status: 400, message: (field: string) => `Field name '${field}' cannot be an empty String` },
  FIELD_TOO_LONG: { status: 400, message: (field: string, max: number) => `${field} is too long. Max length is ${max}.` },
  LIMIT_NOT_POSITIVE: { status: 400, message: () => 'limit must a positive integer with min value 1' },
  INVALID_PAGINATION_TOKEN: { status: 400, message: () => 'invalid pagination token' },
  TOO_MANY_ELEMENTS: {
    status: 400,
    message: (field: string, max: number) => `Field name '${field}' cannot contain more than ${max} elements`,
  },
  INVALID_EMAIL: { status: 400, message: (field: string, reason: string) => `${field} is not a valid email address: ${reason}` },
  RID_PASSWORDLESS_REQUIRED: { status: 400, message: (reason: string) => `Header 'rid: passwordless' is required: ${reason}` },
  INVALID_PHONE_NUMBER: {
    status: 400,
    message: (field: string) => `${field} must be in international format with a leading + and country code, e.g. +14155552671`,
  },

  // Passwordless (§5)
  CREATE_CODE_TARGET: { status: 400, message: () => 'Please provide exactly one of email, phoneNumber or deviceId' },
  USER_INPUT_CODE_EMPTY: { status: 400, message: () => 'userInputCode cannot be an empty string.' },
  CONSUME_CODE_FORM: { status: 400, message: () => 'Please provide exactly one of linkCode or deviceId+userInputCode' },
  INPUT_ENCODING: { status: 400, message: (field: 'deviceId' | 'linkCode') => `Input encoding error in ${field}` },
  PRE_AUTH_SESSION_MISMATCH: { status: 400, message: () => "preAuthSessionId and deviceId doesn't match" },
  LIST_CODES_LOOKUP: { status: 400, message: () => 'Please provide exactly one of email, phoneNumber, deviceId or preAuthSessionId' },
  REMOVE_CODE_NEITHER: { status: 400, message: () => "Please provide either 'codeId' or 'preAuthSessionId'" },
  REMOVE_CODE_BOTH: { status: 400, message: () => "Please provide only one of 'codeId' or 'preAuthSessionId'" },
  REMOVE_CODES_CONTACT: { status: 400, message: () => 'Please provide exactly one of email or phoneNumber' },
  PASSWORDLESS_USER_LOOKUP: { status: 400, message: () => 'Please provide exactly one of userId, email or phoneNumber' },
  CLEAR_BOTH_CONTACTS: { status: 400, message: () => 'You cannot clear both email and phone number of a user' },

  // Email-password (§6)
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
  PASSWORD_EMPTY: { status: 400, message: () => 'Password cannot be an empty string' },
  USER_LOOKUP_BOTH: { status: 400, message: () => 'Please provide only one of userId or email' },
  USER_LOOKUP_NEITHER: { status: 400, message: () => 'Please provide one of userId or email' },
  PASSWORD_RESET_METHOD: { status: 400, message: () => "Unsupported method for password reset: 'method' must be 'token'" },
  UPDATE_USER_NOTHING: { status: 400, message: () => 'You have to provide either email or password.' },

  // Third party (§7)
  THIRD_PARTY_LOOKUP_BOTH: { status: 400, message: () => 'Please provide only one of userId or (thirdPartyId & thirdPartyUserId)' },
  THIRD_PARTY_LOOKUP_NEITHER: { status: 400, message: () => 'Please provide one of userId or (thirdPartyId & thirdPartyUserId)' },

  // Email verification
  EMAIL_VERIFICATION_METHOD: { status: 400, message: () => "Unsupported method for email verification: 'method' must be 'token'" },
  EMAIL_VERIFICATION_UNKNOWN_USER: {
    status: 400,
    message: () => "Field name 'userId' is not the id of a user: an email is verified for an existing user only",
  },

  // Users (§8)
  FLAG_NOT_BOOLEAN: { status: 400, message: (name: string) => `'${name}' should be either 'true' or 'false'` },
  THIRD_PARTY_PAIR: {
    status: 400,
    message: () => "If 'thirdPartyId' is provided, 'thirdPartyUserId' must also be provided, and vice versa",
  },
  UNKNOWN_RECIPE_ID: { status: 400, message: (recipeId: string) => `Unknown recipe ID: ${recipeId}` },
  TIME_JOINED_ORDER: { status: 400, message: () => 'timeJoinedOrder can be either ASC OR DESC' },
  USERS_LIMIT_TOO_HIGH: { status: 400, message: (max: number) => `max limit allowed is ${max}` },

  // Lazy migration
  PENDING_LIMIT_OUT_OF_RANGE: { status: 400, message: (max: number) => `limit must be an integer from 1 to ${max}` },
  LAZY_MIGRATION_SOURCE_UNKNOWN: { status: 400, message: (source: string) => `Unknown lazy-migration source '${source}'` },

  // User-id mapping (§9)
  USER_ID_TYPE: { status: 400, message: () => "Field name 'userIdType' should be one of 'SUPERTOKENS', 'EXTERNAL' or 'ANY'" },
  // Account linking (AL-4)
  UNKNOWN_USER_ID_PROVIDED: { status: 400, message: () => 'Unknown user ID provided' },
  EXTERNAL_ID_IS_USER_ID: {
    status: 400,
    message: () => 'Cannot create a userId mapping where the externalId is also a SuperTokens userID',
  },
  USER_ID_IN_USE: { status: 400, message: (recipe: string) => `UserId is already in use in ${recipe} recipe` },

  // Bulk import (§10); its 400s for users are JSON bodies (jsonBadInput)
  QUEUE_STATUS: { status: 400, message: () => 'Invalid value for status. Pass one of NEW, PROCESSING, or FAILED!' },
  QUEUE_LIMIT_TOO_HIGH: { status: 400, message: (max: number) => `Max limit allowed is ${max}` },
  REMOVE_IDS_EMPTY_STRING: { status: 400, message: () => "Field name 'ids' cannot contain an empty string" },
  BULK_USERS_INVALID: { status: 400, message: () => 'Data has missing or invalid fields. Please check the users field for more details.' },
  BULK_TOO_MANY_USERS: { status: 400, message: (max: number) => `You can only add ${max} users at a time.` },
  BULK_USER_REJECTED: { status: 400, message: () => 'The user was not imported; see errors' },
  // The per-user validation messages of bulk import (§10.2), reported in BULK_USERS_INVALID's `users[].errors`.
  BULK_FIELD_REQUIRED: { status: 400, message: (key: string, suffix: string) => `${key} is required${suffix}` },
  BULK_FIELD_TYPE: { status: 400, message: (key: string, type: string, suffix: string) => `${key} should be of type ${type}${suffix}` },
  BULK_LOGIN_METHOD_REQUIRED: { status: 400, message: () => 'At least one loginMethod is required.' },
  BULK_TWO_PRIMARIES: { status: 400, message: () => 'No two loginMethods can have isPrimary as true.' },
  BULK_RECIPE_ID_INVALID: {
    status: 400,
    message: () => 'Invalid recipeId for loginMethod. Pass one of emailpassword, thirdparty or, passwordless!',
  },
  BULK_NO_TENANT: { status: 400, message: (recipeId: string | undefined) => `LoginMethod '${recipeId}' has no tenantId` },
  BULK_TIME_JOINED_FUTURE: { status: 400, message: () => 'timeJoined cannot be in future for a loginMethod.' },
  BULK_TIME_JOINED_NEGATIVE: { status: 400, message: () => 'timeJoined cannot be < 0 for a loginMethod.' },
  BULK_PASSWORD_REQUIRED: {
    status: 400,
    message: () => 'Either (passwordHash, hashingAlgorithm) or plainTextPassword is required for an emailpassword recipe.',
  },
  BULK_HASHING_ALGORITHM_INVALID: {
    status: 400,
    message: (alsoAccepted: string) =>
      `Invalid hashingAlgorithm for emailpassword recipe. Pass one of bcrypt, argon2 or, idp_scrypt!${alsoAccepted}`,
  },
  BULK_VALUE_TOO_LONG: {
    status: 400,
    message: (field: string, value: string, max: number) => `${field} ${value} is too long. Max length is ${max}.`,
  },
  BULK_CONTACT_REQUIRED: { status: 400, message: () => 'Either email or phoneNumber is required for a passwordless recipe.' },
  BULK_MULTITENANCY_DISABLED: { status: 400, message: () => 'Multitenancy must be enabled before importing users to a different tenant.' },
  BULK_TEXT_UNSTORABLE: {
    status: 400,
    message: (path: string, what: string) => `${path} holds ${what}, which the database cannot store.`,
  },
  BULK_TOTP_DISABLED: { status: 400, message: () => 'MFA must be enabled to import totp devices.' },
  BULK_ROLE_MISSING: { status: 400, message: (role: string) => `Role ${role} does not exist.` },
  BULK_EXTERNAL_ID_REPEATED: {
    status: 400,
    message: (externalUserId: string) => `externalUserId ${externalUserId} is not unique. It is already used by another user.`,
  },
  // The coded per-user import errors (§10.5), reported inside BULK_USER_REJECTED's body and the queue's errorMessage.
  IMPORT_EMAILPASSWORD_EMAIL_EXISTS: {
    status: 400,
    message: (email: string) => `E003: A user with email ${email} already exists in emailpassword loginMethod.`,
  },
  IMPORT_THIRDPARTY_USER_EXISTS: {
    status: 400,
    message: (thirdPartyId: string, thirdPartyUserId: string) =>
      `E005: A user with thirdPartyId ${thirdPartyId} and thirdPartyUserId ${thirdPartyUserId} already exists in thirdparty loginMethod.`,
  },
  IMPORT_PASSWORDLESS_EMAIL_EXISTS: {
    status: 400,
    message: (email: string) => `E006: A user with email ${email} already exists in passwordless loginMethod.`,
  },
  IMPORT_PASSWORDLESS_PHONE_EXISTS: {
    status: 400,
    message: (phoneNumber: string) => `E007: A user with phoneNumber ${phoneNumber} already exists in passwordless loginMethod.`,
  },
  // AL-11.2: an email, phone number or third-party login of a user imported as a primary user is another primary user's.
  // [BEYOND] names the value and who holds it (never a secret: an email, a phone number or a provider account).
  IMPORT_ACCOUNT_INFO_CONFLICT: {
    status: 400,
    message: (what?: string) =>
      what === undefined ? 'E027: there is a conflicting account info' : `E027: there is a conflicting account info: ${what}`,
  },
  IMPORT_EXTERNAL_ID_EXISTS: {
    status: 400,
    message: (externalUserId: string) => `E031: A user with externalId ${externalUserId} already exists`,
  },
  IMPORT_ROLE_UNKNOWN: {
    status: 400,
    message: () => 'E034: Role does not exist! You need to pre-create the role before assigning it to the user.',
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
  EMAIL_VERIFICATION_METHOD: () => 'method',
  EMAIL_VERIFICATION_UNKNOWN_USER: () => 'userId',
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

/** The old provider of a pending user could not answer; the client is told when to try again. */
export function legacyUnavailable(retryAfterMs: number): CoreError {
  const error = coreError('LEGACY_VERIFY_UNAVAILABLE');
  error.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return error;
}
export const invalidField = (field: string) => coreError('INVALID_FIELD', field);

/** A catalog error answered with a JSON body (bulk import) instead of its plain-text message. */
export function jsonCoreError(code: ErrorCode, body: object): CoreError {
  return new CoreError(code, JSON.stringify(body), body);
}

export function errorStatus(code: ErrorCode): number {
  return catalog[code].status;
}
