import { describe, expect, it } from 'vitest';
import { errorCodes, errorMessage, errorStatus, type ErrorCode } from '../src/errors.js';
import { isContractError } from './hostile/support/contract-messages.js';

// Arguments for the entries whose message takes some, as the core passes them.
const sampleArgs: Partial<Record<ErrorCode, unknown[]>> = {
  INVALID_FIELD: ['email'],
  TENANT_ID_RESERVED: ['recipe'],
  TENANT_INPUT_NOT_VALID: ['thirdParty'],
  FACTORS_DUPLICATE: ['firstFactors'],
  FACTORS_CHARACTERS: ['requiredSecondaryFactors'],
  INVALID_CORE_CONFIG: ['Invalid config key: foo'],
  INVALID_THIRD_PARTY_CONFIG: ['clientId cannot be null'],
  JSON_TOO_DEEP: ['userMetadata', 64],
  MISSING_QUERY_FIELD: ['userId'],
  QUERY_FIELD_NOT_INT: ['limit'],
  CDI_VERSION_NOT_SUPPORTED: ['2.6'],
  CDI_VERSION_TOO_LOW: ['3.0', '4.0'],
  TENANT_NOT_FOUND: ['public', 't1'],
  BODY_TOO_LARGE: [1024],
  FIELD_EMPTY: ['externalUserId'],
  FIELD_TOO_LONG: ['email', 256],
  INPUT_ENCODING: ['deviceId'],
  PASSWORD_HASH_INVALID: ['Password hash is in invalid BCrypt format', 'cost 32 is out of range'],
  UNKNOWN_RECIPE_ID: ['webauthn2'],
  USERS_LIMIT_TOO_HIGH: [500],
  USER_ID_IN_USE: ['UserMetadata'],
  QUEUE_LIMIT_TOO_HIGH: [500],
  TOO_MANY_ELEMENTS: ['ids', 500],
  FLAG_NOT_BOOLEAN: ['dryRun'],
  HASHING_ALGORITHM_UNSUPPORTED: ['argon2, bcrypt'],
  BULK_TOO_MANY_USERS: [10000],
  BULK_FIELD_REQUIRED: ['email', ' for an emailpassword recipe.'],
  BULK_FIELD_TYPE: ['isVerified', 'boolean', ' for a loginMethod.'],
  BULK_NO_TENANT: ['emailpassword'],
  BULK_HASHING_ALGORITHM_INVALID: [' Also accepted: pbkdf2.'],
  BULK_VALUE_TOO_LONG: ['thirdPartyId', 'x'.repeat(29), 28],
  BULK_ROLE_MISSING: ['admin'],
  BULK_EXTERNAL_ID_REPEATED: ['old-1'],
  IMPORT_EMAILPASSWORD_EMAIL_EXISTS: ['a@example.com'],
  IMPORT_THIRDPARTY_USER_EXISTS: ['google', 'g-1'],
  IMPORT_PASSWORDLESS_EMAIL_EXISTS: ['a@example.com'],
  IMPORT_PASSWORDLESS_PHONE_EXISTS: ['+14155552671'],
  IMPORT_EXTERNAL_ID_EXISTS: ['old-1'],
  BULK_QUERY_TOO_MANY_USERS: [500],
  ARRAY_EMPTY_STRING: ['permissions'],
  ROLE_TOO_LONG: ['role', 'x'.repeat(256), 255],
  TOTP_FIELD_EMPTY: ['deviceName'],
  TOTP_SKEW_BOUND: ['<= 10'],
  TOTP_PERIOD_BOUND: ['> 0'],
  TOTP_SECRET_UNDECODABLE: ['base32', ''],
  TOTP_SECRET_TOO_SHORT: [40, 80, ' for a totp device.'],
  TOTP_SECRET_TOO_LONG: [161, 160, ''],
  TOTP_OTPAUTH_INVALID: [''],
  TOTP_OTPAUTH_HOTP: [''],
  TOTP_OTPAUTH_CONFLICT: ['digits', 'digits', ''],
  TOTP_SECRET_ENCODING_INVALID: [''],
  TOTP_ALGORITHM_INVALID: [''],
  TOTP_DIGITS_INVALID: [''],
  BULK_TOTP_PERIOD: ['> 0'],
  BULK_TOTP_SKEW: ['>= 0'],
  BULK_TOTP_NAME_TOO_LONG: ['x'.repeat(257)],
  BULK_TOTP_NAME_REPEATED: ['d'],
  RECOVERY_CODE_FORM: [' for a recovery code.'],
  RECOVERY_CODE_ALGORITHM: [''],
  RECOVERY_CODE_LENGTH: [''],
  RECOVERY_CODES_TOO_MANY: [32],
  ACCESS_TOKEN_VALIDITY_RANGE: [3600000],
  SESSION_REMOVE_FLAG_WITHOUT_USER: ['revokeAcrossAllTenants'],
  ACCESS_TOKEN_CLAIM_MISSING: ['rsub'],
};

// Answered as JSON bodies, which carry the message under `error` (or per-user messages under `errors`).
const perUser = (message: string) => ({
  error: 'Data has missing or invalid fields. Please check the users field for more details.',
  users: [{ index: 0, errors: [message] }],
});
const jsonBodied: Partial<Record<ErrorCode, (message: string) => object>> = {
  BULK_FIELD_REQUIRED: perUser,
  BULK_FIELD_TYPE: perUser,
  BULK_LOGIN_METHOD_REQUIRED: perUser,
  BULK_TWO_PRIMARIES: perUser,
  BULK_RECIPE_ID_INVALID: perUser,
  BULK_NO_TENANT: perUser,
  BULK_TIME_JOINED_FUTURE: perUser,
  BULK_TIME_JOINED_NEGATIVE: perUser,
  BULK_PASSWORD_REQUIRED: perUser,
  BULK_HASHING_ALGORITHM_INVALID: perUser,
  BULK_VALUE_TOO_LONG: perUser,
  BULK_CONTACT_REQUIRED: perUser,
  BULK_TENANT_INVALID: perUser,
  BULK_ROLE_TENANT_NOT_IN_LOGIN_METHODS: perUser,
  BULK_ROLE_MISSING: perUser,
  BULK_EXTERNAL_ID_REPEATED: perUser,
  BULK_TOO_MANY_USERS: (message) => ({ error: message }),
  BULK_USERS_INVALID: (message) => ({ error: message, users: [] }),
  IMPORT_EMAILPASSWORD_EMAIL_EXISTS: (message) => ({ errors: [message] }),
  IMPORT_THIRDPARTY_USER_EXISTS: (message) => ({ errors: [message] }),
  IMPORT_PASSWORDLESS_EMAIL_EXISTS: (message) => ({ errors: [message] }),
  IMPORT_PASSWORDLESS_PHONE_EXISTS: (message) => ({ errors: [message] }),
  IMPORT_ACCOUNT_INFO_CONFLICT: (message) => ({ errors: [message] }),
  IMPORT_EXTERNAL_ID_EXISTS: (message) => ({ errors: [message] }),
  IMPORT_EXTERNAL_ID_IS_USER_ID: (message) => ({ errors: [message] }),
  IMPORT_ROLE_UNKNOWN: (message) => ({ errors: [message] }),
  BULK_USER_REJECTED: () => ({
    errors: ['E027: there is a conflicting account info'],
  }),
};

// Features the contract's message index leaves out: the optional IP filter, password reset, email verification,
// lazy migration, the session bridge, the limits on failed sign-ins and the stricter email, phone number, rid and JSON-position checks. Account linking's text is in
// the contract's account-linking addendum (AL-15), not in docs/contract.md.
const notContractTexts = new Set<ErrorCode>([
  'UNKNOWN_USER_ID_PROVIDED',
  'IP_NOT_ALLOWED',
  'PASSWORD_RESET_METHOD',
  'EMAIL_VERIFICATION_METHOD',
  'EMAIL_VERIFICATION_UNKNOWN_USER',
  'LAZY_MIGRATION_SOURCE_UNKNOWN',
  'SESSION_BRIDGE_SOURCE_UNKNOWN',
  'PENDING_LIMIT_OUT_OF_RANGE',
  'SIGNIN_ATTEMPTS_LIMITED',
  'INVALID_JSON_AT',
  'INVALID_EMAIL',
  'RID_PASSWORDLESS_REQUIRED',
  'INVALID_PHONE_NUMBER',
  // The reference core answers such text with a database error; the bulk routes name it per user instead.
  'BULK_TEXT_UNSTORABLE',
  // The reference signs session claims in a /recipe/jwt payload and regenerates tokens it never verified.
  'JWT_PAYLOAD_SESSION_CLAIM',
  'ACCESS_TOKEN_OTHER_USER',
  // The reference builds any answer, however large.
  'BULK_METADATA_TOO_LARGE',
  // Passkeys in bulk import (contract-webauthn W-4): the reference's bulk import has no webauthn login method.
  'BULK_WEBAUTHN_CREDENTIALS_REQUIRED',
  'BULK_WEBAUTHN_CREDENTIAL_FIELD',
  'BULK_WEBAUTHN_RP_ID',
  'IMPORT_WEBAUTHN_EMAIL_EXISTS',
  'IMPORT_WEBAUTHN_CREDENTIAL_EXISTS',
  // Recovery codes are beyond the reference (contract M-7): bounds on digests and devices, and a limit on guesses.
  'RECOVERY_CODE_DIGEST_REFUSED',
  'RECOVERY_CODES_TOO_MANY_DIGESTS',
  'RECOVERY_CODES_USER_FULL',
  'RECOVERY_CODE_ATTEMPTS_LIMITED',
  'TOTP_DEVICES_TOO_MANY',
  'BULK_TOTP_DEVICES_TOO_MANY',
]);
const messageOf = errorMessage as (code: ErrorCode, ...args: unknown[]) => string;

describe('error catalog', () => {
  it.each(errorCodes.filter((code) => errorStatus(code) < 500 && !notContractTexts.has(code)))('%s answers a contract text', (code) => {
    const message = messageOf(code, ...(sampleArgs[code] ?? []));
    const toBody = jsonBodied[code];
    const body = toBody ? JSON.stringify(toBody(message)) : message;
    expect(isContractError(errorStatus(code), body), body).toBe(true);
  });

  // §10.5, AL-11.2: the coded import errors carry their contract code and name the colliding value.
  it.each([
    ['IMPORT_EMAILPASSWORD_EMAIL_EXISTS', 'E003', 'a@example.com'],
    ['IMPORT_THIRDPARTY_USER_EXISTS', 'E005', 'g-1'],
    ['IMPORT_PASSWORDLESS_EMAIL_EXISTS', 'E006', 'a@example.com'],
    ['IMPORT_PASSWORDLESS_PHONE_EXISTS', 'E007', '+14155552671'],
    ['IMPORT_ACCOUNT_INFO_CONFLICT', 'E027', 'conflicting account info'],
    ['IMPORT_EXTERNAL_ID_EXISTS', 'E031', 'old-1'],
    ['IMPORT_EXTERNAL_ID_IS_USER_ID', 'E030', 'externalId is also a SuperTokens userID'],
    ['IMPORT_ROLE_UNKNOWN', 'E034', 'Role does not exist'],
  ] as const)('%s is the coded import error %s', (code, contractCode, named) => {
    const message = messageOf(code, ...(sampleArgs[code] ?? []));
    expect(message.startsWith(`${contractCode}: `)).toBe(true);
    expect(message).toContain(named);
  });
});
