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

  // Dashboard users (contract-multitenancy T-4)
  DASHBOARD_USER_SELECTOR: { status: 400, message: () => "Either field 'email' or 'userId' must be present" },

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
  SESSION_BRIDGE_SOURCE_UNKNOWN: { status: 400, message: (source: string) => `Unknown session-bridge source '${source}'` },

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
  BULK_TENANT_INVALID: { status: 400, message: (tenantId: string, suffix: string) => `Invalid tenantId: ${tenantId}${suffix}` },
  BULK_ROLE_TENANT_NOT_IN_LOGIN_METHODS: {
    status: 400,
    message: (tenantId: string) => `TenantId ${tenantId} for a user role does not exist in loginMethods.`,
  },
  BULK_TEXT_UNSTORABLE: {
    status: 400,
    message: (path: string, what: string) => `${path} holds ${what}, which the database cannot store.`,
  },
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
  // id-rules.ts: the external id is another user's id (the reference's E030 around the mapping route's 400).
  IMPORT_EXTERNAL_ID_IS_USER_ID: {
    status: 400,
    message: () => 'E030: Cannot create a userId mapping where the externalId is also a SuperTokens userID',
  },
  // Passkeys carried by bulk import (contract-webauthn W-4), in a user's `errors`.
  BULK_WEBAUTHN_CREDENTIALS_REQUIRED: {
    status: 400,
    message: () => 'credentials must be a non-empty array of object for a webauthn recipe.',
  },
  BULK_WEBAUTHN_CREDENTIAL_FIELD: {
    status: 400,
    message: (index: number, field: string, problem: string) => `credentials[${index}].${field} ${problem} for a webauthn recipe.`,
  },
  BULK_WEBAUTHN_RP_ID: {
    status: 400,
    message: (index: number, problem: string) => `credentials[${index}].${problem}`,
  },
  IMPORT_WEBAUTHN_EMAIL_EXISTS: {
    status: 400,
    message: (email: string) => `EW01: A user with email ${email} already exists in webauthn loginMethod.`,
  },
  IMPORT_WEBAUTHN_CREDENTIAL_EXISTS: {
    status: 400,
    message: (credentialId: string, rpId: string, holder: string) =>
      `EW02: The passkey ${credentialId} of RP ID ${rpId} already belongs to ${holder}.`,
  },
  IMPORT_ROLE_UNKNOWN: {
    status: 400,
    message: () => 'E034: Role does not exist! You need to pre-create the role before assigning it to the user.',
  },

  // User metadata, roles, TOTP, recovery codes (contract-metadata-roles-totp M-3..M-8). `suffix` is '' on a route
  // and the bulk-import part's suffix (' for a totp device.', ' for a recovery code.') in a user's `errors`.
  BULK_QUERY_TOO_MANY_USERS: { status: 400, message: (max: number) => `You can only query up to ${max} users at a time.` },
  USER_IDS_NOT_STRINGS: { status: 400, message: () => 'userIds array must contain only strings' },
  BULK_METADATA_TOO_LARGE: {
    status: 400,
    message: (max: number) => `The metadata of these userIds is more than ${max} bytes, the most one answer holds; ask for fewer users`,
  },
  ARRAY_EMPTY_STRING: { status: 400, message: (field: string) => `Field name '${field}' cannot contain an empty string` },
  ROLE_TOO_LONG: {
    status: 400,
    message: (kind: 'role' | 'permission', value: string, max: number) => `${kind} ${value} is too long. Max length is ${max}.`,
  },
  TOTP_FIELD_EMPTY: { status: 400, message: (field: string) => `${field} cannot be empty` },
  TOTP_SKEW_BOUND: { status: 400, message: (bound: '>= 0' | '<= 10') => `skew must be ${bound}` },
  TOTP_PERIOD_BOUND: { status: 400, message: (bound: '> 0' | '<= 3600') => `period must be ${bound}` },
  TOTP_SECRET_UNDECODABLE: {
    status: 400,
    message: (encoding: string, suffix: string) => `secretKey could not be decoded as ${encoding}${suffix}`,
  },
  TOTP_SECRET_TOO_SHORT: {
    status: 400,
    message: (bits: number, minimum: number, suffix: string) => `secretKey is too short (${bits} bits; minimum ${minimum})${suffix}`,
  },
  TOTP_SECRET_TOO_LONG: {
    status: 400,
    message: (bytes: number, maximum: number, suffix: string) => `secretKey is too long (${bytes} bytes; maximum ${maximum})${suffix}`,
  },
  TOTP_SECRET_TEXT_TOO_LONG: { status: 400, message: () => 'TOTP secretKey is too long. Max length is 256.' },
  TOTP_OTPAUTH_INVALID: { status: 400, message: (suffix: string) => `secretKey is not a valid otpauth://totp URL${suffix}` },
  TOTP_OTPAUTH_HOTP: { status: 400, message: (suffix: string) => `only TOTP devices can be imported (otpauth://hotp)${suffix}` },
  TOTP_OTPAUTH_CONFLICT: {
    status: 400,
    message: (param: string, field: string, suffix: string) => `${param} in the otpauth URL conflicts with ${field}${suffix}`,
  },
  TOTP_SECRET_ENCODING_INVALID: {
    status: 400,
    message: (suffix: string) => `Invalid secretEncoding. Pass one of base32, hex, base64, raw or, otpauth!${suffix}`,
  },
  TOTP_ALGORITHM_INVALID: { status: 400, message: (suffix: string) => `Invalid algorithm. Pass one of SHA1, SHA256 or, SHA512!${suffix}` },
  TOTP_DIGITS_INVALID: { status: 400, message: (suffix: string) => `digits should be 6, 7 or 8${suffix}` },
  BULK_TOTP_PERIOD: { status: 400, message: (bound: '> 0' | '<= 3600') => `period should be ${bound} for a totp device.` },
  BULK_TOTP_SKEW: { status: 400, message: (bound: '>= 0' | '<= 10') => `skew should be ${bound} for a totp device.` },
  BULK_TOTP_NAME_TOO_LONG: { status: 400, message: (name: string) => `TOTP deviceName ${name} is too long. Max length is 256.` },
  BULK_TOTP_NAME_REPEATED: { status: 400, message: (name: string) => `TOTP deviceName ${name} is not unique for this user.` },
  TOTP_DEVICES_TOO_MANY: {
    status: 400,
    message: (max: number) => `A user can hold at most ${max} TOTP devices: remove one first`,
  },
  BULK_TOTP_DEVICES_TOO_MANY: { status: 400, message: (max: number) => `totpDevices can contain at most ${max} devices` },
  BULK_TOTP_START_TIME: { status: 400, message: () => 't0 other than 0 is not supported for a totp device.' },
  RECOVERY_CODES_NOT_ARRAY: { status: 400, message: () => 'recoveryCodes should be an array of strings or objects.' },
  RECOVERY_CODE_FORM: { status: 400, message: (suffix: string) => `Either code or (hash, hashingAlgorithm) is required${suffix}` },
  RECOVERY_CODE_ALGORITHM: {
    status: 400,
    message: (suffix: string) => `Invalid hashingAlgorithm. Pass one of bcrypt, sha256 or, sha512!${suffix}`,
  },
  RECOVERY_CODE_LENGTH: { status: 400, message: (suffix: string) => `code should be 6 to 64 characters${suffix}` },
  RECOVERY_CODES_DUPLICATE: { status: 400, message: () => 'recoveryCodes contains duplicate codes' },
  RECOVERY_CODES_TOO_MANY: { status: 400, message: (max: number) => `recoveryCodes can contain at most ${max} codes` },
  RECOVERY_CODE_DIGEST_REFUSED: {
    status: 400,
    message: (reason: string, suffix: string) => `hash is not an accepted bcrypt digest: ${reason}${suffix}`,
  },
  RECOVERY_CODES_TOO_MANY_DIGESTS: {
    status: 400,
    message: (max: number) => `recoveryCodes can contain at most ${max} bcrypt digests`,
  },
  RECOVERY_CODES_USER_FULL: {
    status: 400,
    message: (max: number, maxDigests: number) =>
      `A user can hold at most ${max} recovery codes, ${maxDigests} of them bcrypt digests: pass replaceExisting or remove codes first`,
  },
  RECOVERY_CODE_ATTEMPTS_LIMITED: {
    status: 429,
    message: (retryAfterSeconds: number) => `Too many failed recovery-code attempts; retry after ${retryAfterSeconds} seconds`,
  },
  // Sessions (S-4.10). The 400s refuse input; the 200 entries are the `message` of a TRY_REFRESH_TOKEN or
  // UNAUTHORISED result, which services report with errorMessage().
  SESSION_PROTECTED_CLAIM: { status: 400, message: () => 'The user payload contains protected field' },
  ACCESS_TOKEN_VALIDITY_RANGE: {
    status: 400,
    message: (maxMs: number) => `accessTokenValidity must be greater than 0 and at most the configured access_token_validity (${maxMs} ms)`,
  },
  SESSION_REMOVE_ONE_OF: { status: 400, message: () => 'Invalid JSON input - use one of userId or sessionHandles array' },
  SESSION_REMOVE_FLAG_WITHOUT_USER: {
    status: 400,
    message: (flag: 'revokeAcrossAllTenants' | 'revokeSessionsForLinkedAccounts') =>
      `Invalid JSON input - ${flag} can only be set if userId is set`,
  },
  JWT_VALIDITY_NOT_POSITIVE: { status: 400, message: () => 'validity must be greater than or equal to 0' },
  JWT_PAYLOAD_SESSION_CLAIM: {
    status: 400,
    message: (claim: string) => `Field name 'payload' contains '${claim}', a claim only access tokens carry`,
  },
  ACCESS_TOKEN_EXPIRED: { status: 200, message: () => 'Access token expired' },
  ACCESS_TOKEN_KEY_NOT_FOUND: { status: 200, message: () => 'Key not found' },
  ACCESS_TOKEN_ANTI_CSRF_FAILED: { status: 200, message: () => 'anti-csrf check failed' },
  ACCESS_TOKEN_CLAIM_MISSING: {
    status: 200,
    message: (claim: string) => `Access token does not contain all the information. Maybe the structure has changed? ${claim}`,
  },
  ACCESS_TOKEN_INVALID_JWT: { status: 200, message: () => 'Invalid JWT' },
  ACCESS_TOKEN_SIGNATURE_FAILED: { status: 200, message: () => 'JWT verification failed' },
  ACCESS_TOKEN_INVALID: { status: 200, message: () => 'Invalid access token' },
  ACCESS_TOKEN_OTHER_USER: { status: 200, message: () => 'The access token names another user than its session' },
  SESSION_ENDED: { status: 200, message: () => 'Either the session has ended or has been blacklisted' },
  SESSION_MISSING_IN_DB: { status: 200, message: () => 'Session missing in db' },
  SESSION_ROTATED_OUT: { status: 200, message: () => 'rotated-out token branch; refresh required' },
  REFRESH_ANTI_CSRF_FAILED: { status: 200, message: () => 'Anti CSRF token missing, or not matching' },
  SESSION_MISSING_OR_EXPIRED: { status: 200, message: () => 'Session missing in db or has expired' },
  REFRESH_TOKEN_REUSED: { status: 200, message: () => 'refresh token reuse detected' },
  SESSION_DOES_NOT_EXIST: { status: 200, message: () => 'Session does not exist.' },
  REFRESH_TOKEN_INVALID: { status: 200, message: () => 'Invalid refresh token' },

  // Tenants and their third-party providers (contract-multitenancy T-1.1, T-7).
  TENANT_ID_EMPTY: { status: 400, message: () => 'tenantId should not be an empty String' },
  TENANT_ID_RESERVED: { status: 400, message: (tenantId: string) => `Cannot use '${tenantId}' as a tenantId` },
  TENANT_ID_APPID_PREFIX: { status: 400, message: () => "tenantId must not start with 'appid-'" },
  TENANT_ID_CHARACTERS: { status: 400, message: () => 'tenantId can only contain letters, numbers and hyphens' },
  TENANT_INPUT_NOT_VALID: { status: 400, message: (name: string) => `${name} is not a valid input for this API` },
  FACTORS_DUPLICATE: { status: 400, message: (field: string) => `${field} input should not contain duplicate values` },
  FACTORS_CHARACTERS: { status: 400, message: (field: string) => `${field} should contain only 0-9,a-z,A-Z,_,.,- characters` },
  INVALID_CORE_CONFIG: { status: 400, message: (reason: string) => `Invalid core config: ${reason}` },
  BASE_CONFIG_READ_ONLY: { status: 400, message: () => 'Cannot modify base config' },
  INVALID_THIRD_PARTY_CONFIG: { status: 400, message: (reason: string) => `Invalid third party config: ${reason}` },
  TENANT_SOURCE_FORBIDDEN: { status: 403, message: () => 'You must use the public or same tenant to add/update a tenant' },
  PUBLIC_TENANT_UNDELETABLE: { status: 403, message: () => 'Cannot delete public tenant, use remove app API instead' },
  TENANT_REMOVE_PUBLIC_ONLY: { status: 403, message: () => 'Only the public tenantId is allowed to delete a tenant' },
  TENANT_LIST_PUBLIC_ONLY: {
    status: 403,
    message: () => 'Only the public tenantId is allowed to list all tenants associated with this app',
  },
  // The recipe gate of cdi 5.0 and older (texts of the reference's MultitenancyHelper callers).
  EMAIL_PASSWORD_NOT_ENABLED: { status: 403, message: () => 'Email password login not enabled for tenant' },
  PASSWORDLESS_NOT_ENABLED: { status: 403, message: () => 'Passwordless login not enabled for tenant' },
  THIRD_PARTY_NOT_ENABLED: { status: 403, message: () => 'Third Party login not enabled for tenant' },
  PROVIDER_SECRETS_UNREADABLE: {
    status: 500,
    message: (tenantId: string, thirdPartyId: string) =>
      `The secrets of provider '${thirdPartyId}' in tenant '${tenantId}' are sealed with a key 'totp_secret_keys' does not list`,
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
  TOTP_SECRET_KEYS_MISSING: {
    status: 500,
    message: () => `'totp_secret_keys' is not configured: set it in config.yaml, TOTP_SECRET_KEYS or TOTP_SECRET_KEYS_FILE`,
  },
  SIGNIN_ATTEMPTS_LIMITED: {
    status: 429,
    message: (retryAfterSeconds: number) => `Too many failed sign-in attempts; retry after ${retryAfterSeconds} seconds`,
  },
  LEGACY_VERIFY_UNAVAILABLE: { status: 503, message: () => 'Legacy password verification is unavailable; try again later' },
  SESSION_BRIDGE_KEYS_UNAVAILABLE: { status: 503, message: () => "The old provider's signing keys cannot be fetched; try again later" },
  DATABASE_BUSY: {
    status: 503,
    message: (retryAfterSeconds: number) => `The database is busy, retry after ${retryAfterSeconds} seconds`,
  },
  DATABASE_UNAVAILABLE: {
    status: 503,
    message: (retryAfterSeconds: number) => `The database is unavailable, retry after ${retryAfterSeconds} seconds`,
  },
  IMPORT_BUSY: {
    status: 503,
    message: (retryAfterSeconds: number) => `Too many imports at once, retry after ${retryAfterSeconds} seconds`,
  },
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
  ARRAY_EMPTY_STRING: firstArgument,
  TOTP_FIELD_EMPTY: firstArgument,
  TOTP_SKEW_BOUND: () => 'skew',
  TOTP_PERIOD_BOUND: () => 'period',
  TOTP_SECRET_UNDECODABLE: () => 'secretKey',
  TOTP_SECRET_TOO_SHORT: () => 'secretKey',
  TOTP_SECRET_TOO_LONG: () => 'secretKey',
  TOTP_OTPAUTH_INVALID: () => 'secretKey',
  TOTP_OTPAUTH_HOTP: () => 'secretKey',
  TOTP_SECRET_ENCODING_INVALID: () => 'secretEncoding',
  TOTP_ALGORITHM_INVALID: () => 'algorithm',
  TOTP_DIGITS_INVALID: () => 'digits',
  TENANT_ID_EMPTY: () => 'tenantId',
  TENANT_ID_RESERVED: () => 'tenantId',
  TENANT_ID_APPID_PREFIX: () => 'tenantId',
  TENANT_ID_CHARACTERS: () => 'tenantId',
  TENANT_INPUT_NOT_VALID: firstArgument,
  FACTORS_DUPLICATE: firstArgument,
  FACTORS_CHARACTERS: firstArgument,
  INVALID_CORE_CONFIG: () => 'coreConfig',
  BASE_CONFIG_READ_ONLY: () => 'coreConfig',
  INVALID_THIRD_PARTY_CONFIG: () => 'config',
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

// A refusal whose text and Retry-After header name the same number of seconds.
function retryAfter(code: 'VERIFICATION_BUSY' | 'IMPORT_BUSY' | 'DATABASE_BUSY' | 'DATABASE_UNAVAILABLE', seconds: number): CoreError {
  const error = coreError(code, seconds);
  error.retryAfterSeconds = seconds;
  return error;
}

/** 503 with Retry-After: the password-verification queue is full, its wait ran out, or the core is stopping. */
export function busyError(retryAfterSeconds: number): CoreError {
  return retryAfter('VERIFICATION_BUSY', retryAfterSeconds);
}

/** 503 with Retry-After: as many importNow requests as a core lets in at once are in (import-slots.ts). */
export function importBusyError(): CoreError {
  return retryAfter('IMPORT_BUSY', 1);
}

/** 503 with Retry-After: every database connection stayed busy for as long as a request may wait for one. */
export function databaseBusyError(): CoreError {
  return retryAfter('DATABASE_BUSY', 1);
}

/** 503 with Retry-After: no database server can serve now (down, restarting, or a failover under way). */
export function databaseUnavailableError(): CoreError {
  return retryAfter('DATABASE_UNAVAILABLE', 1);
}

/**
 * 429 with Retry-After for recovery-code guesses past the account's limit (the TOTP ledger) or the client's; the body
 * is the LIMIT_REACHED_ERROR object of contract M-7, so callers that read `status` still see it.
 */
export function recoveryCodeLimited(body: { status: 'LIMIT_REACHED_ERROR'; retryAfterMs: number }): CoreError {
  const seconds = Math.max(1, Math.ceil(body.retryAfterMs / 1000));
  const error = new CoreError('RECOVERY_CODE_ATTEMPTS_LIMITED', errorMessage('RECOVERY_CODE_ATTEMPTS_LIMITED', seconds), body);
  error.retryAfterSeconds = seconds;
  return error;
}

/** Sign-ins of this account (or from this client) wait until the limit's window moves on; never "wrong password". */
export function signInLimited(retryAfterMs: number): CoreError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  const error = coreError('SIGNIN_ATTEMPTS_LIMITED', seconds);
  error.retryAfterSeconds = seconds;
  return error;
}

/** The old provider of a pending user could not answer; the client is told when to try again. */
export function legacyUnavailable(retryAfterMs: number): CoreError {
  const error = coreError('LEGACY_VERIFY_UNAVAILABLE');
  error.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return error;
}
/** A 503 whose cause will pass: the client is told when to try again. */
export function retryLater(code: 'SESSION_BRIDGE_KEYS_UNAVAILABLE', retryAfterMs: number): CoreError {
  const error = coreError(code);
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
