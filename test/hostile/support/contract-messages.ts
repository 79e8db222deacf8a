// Every error an answer may carry (contract §1.8, §16 and the route sections), by HTTP status. An answer
// outside this list is a finding: either the contract misses it or the core invents it.
const text = (message: string) => new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
const anyText = '[^]*';

const badRequest: RegExp[] = [
  text('Invalid Json Input'),
  // [BEYOND] where parsing stopped, never what the body holds.
  /^Invalid Json Input: [a-z ',{}[\]:]+ at line \d+, column \d+$/,
  // The field name is echoed as sent, quotes and all.
  /^Field name '.*' is invalid in JSON input$/s,
  /^Field name '.*' is nested deeper than 64 levels in JSON input$/s,
  /^Field name '.*' is missing in GET request$/s,
  /^Field name '.*' must be an int in the GET request$/s,
  /^Field name '.*' cannot be an empty String$/s,
  text('cdi-version header is invalid'),
  new RegExp(`^cdi-version ${anyText} not supported$`),
  new RegExp(`^cdi-version ${anyText} is lower than the minimum allowed version ${anyText}$`),
  new RegExp(
    `^AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: \\(, ${anyText}, ${anyText}\\)$`,
  ),
  // Passwordless
  text('Please provide exactly one of email, phoneNumber or deviceId'),
  text('userInputCode cannot be an empty string.'),
  text('Please provide exactly one of linkCode or deviceId+userInputCode'),
  text("preAuthSessionId and deviceId doesn't match"),
  text('Input encoding error in deviceId'),
  text('Input encoding error in linkCode'),
  text('Please provide exactly one of email, phoneNumber, deviceId or preAuthSessionId'),
  text("Please provide either 'codeId' or 'preAuthSessionId'"),
  text("Please provide only one of 'codeId' or 'preAuthSessionId'"),
  text('Please provide exactly one of email or phoneNumber'),
  text('You cannot clear both email and phone number of a user'),
  text('Please provide exactly one of userId, email or phoneNumber'),
  // Email-password ([BEYOND] the format errors may carry ": <reason>")
  text('Password hash cannot be an empty string'),
  text('Hashing Algorithm cannot be an empty string'),
  // [BEYOND] the accepted values follow the contract's text, and new formats have their own names.
  new RegExp(`^Unsupported password hashing algorithm: use one of ${anyText}$`),
  new RegExp(`^Password hash is in invalid ([A-Za-z0-9 ._-]+ )?format(: ${anyText})?$`),
  text('Password cannot be an empty string'),
  text('Please provide only one of userId or email'),
  text('Please provide one of userId or email'),
  text('You have to provide either email or password.'),
  // Dashboard users (contract-multitenancy T-4)
  text("Either field 'email' or 'userId' must be present"),
  // Third party
  text('Please provide only one of userId or (thirdPartyId & thirdPartyUserId)'),
  text('Please provide one of userId or (thirdPartyId & thirdPartyUserId)'),
  // Not in the contract (§7.1 proposes a 500): the third-party service names the over-long field instead.
  /^(thirdPartyId|thirdPartyUserId|email|phoneNumber|externalUserId) is too long\. Max length is (28|128|256)\.$/,
  // Not in the contract either: the one password-hash length limit both import routes apply.
  text('passwordHash is too long. Max length is 2048.'),
  // [BEYOND] contact rules (README "Emails and phone numbers"), and the rid PUT /recipe/user needs
  /^email is not a valid email address: (it|its domain) [^\n]+$/,
  text('phoneNumber must be in international format with a leading + and country code, e.g. +14155552671'),
  /^Header 'rid: passwordless' is required: (phoneNumber is stored only for passwordless users|the user is a passwordless user)$/,
  // Users
  text("If 'thirdPartyId' is provided, 'thirdPartyUserId' must also be provided, and vice versa"),
  text("'doUnionOfAccountInfo' should be either 'true' or 'false'"),
  new RegExp(`^Unknown recipe ID: ${anyText}$`),
  text('limit must a positive integer with min value 1'),
  text('max limit allowed is 500'),
  text('timeJoinedOrder can be either ASC OR DESC'),
  text('invalid pagination token'),
  // User-id mapping
  text("Field name 'userIdType' should be one of 'SUPERTOKENS', 'EXTERNAL' or 'ANY'"),
  text('Cannot create a userId mapping where the externalId is also a SuperTokens userID'),
  /^UserId is already in use in (Session|UserMetadata|UserRoles|EmailVerification|TOTP) recipe$/,
  // Sessions (S-4.10)
  text('The user payload contains protected field'),
  /^accessTokenValidity must be greater than 0 and at most the configured access_token_validity \(\d+ ms\)$/,
  text('Invalid JSON input - use one of userId or sessionHandles array'),
  text('Invalid JSON input - revokeAcrossAllTenants can only be set if userId is set'),
  text('Invalid JSON input - revokeSessionsForLinkedAccounts can only be set if userId is set'),
  text('validity must be greater than or equal to 0'),
  // Bulk import
  text('Invalid value for status. Pass one of NEW, PROCESSING, or FAILED!'),
  text('Max limit allowed is 500'),
  text("Field name 'ids' cannot contain more than 500 elements"),
  text("Field name 'ids' cannot contain an empty string"),
  // [BEYOND] POST /bulk-import/users?dryRun=<bool>
  text("'dryRun' should be either 'true' or 'false'"),
  // Metadata, roles, TOTP and recovery codes (contract-metadata-roles-totp M-3..M-8), with the bulk-import suffixes.
  text('userIds array must contain only strings'),
  /^You can only query up to \d+ users at a time\.$/,
  /^Field name '.*' cannot contain an empty string$/s,
  /^(role|permission) .* is too long\. Max length is 255\.$/s,
  /^(userId|deviceName|existingDeviceName|newDeviceName|secretKey) cannot be empty$/,
  /^skew (must be|should be) (>= 0|<= 10)( for a totp device\.)?$/,
  /^period (must be|should be) (> 0|<= 3600)( for a totp device\.)?$/,
  /^secretKey could not be decoded as (base32|hex|base64|raw|otpauth)( for a totp device\.)?$/,
  /^secretKey is too short \(\d+ bits; minimum \d+\)( for a totp device\.)?$/,
  /^secretKey is too long \(\d+ bytes; maximum 160\)( for a totp device\.)?$/,
  text('TOTP secretKey is too long. Max length is 256.'),
  /^secretKey is not a valid otpauth:\/\/totp URL( for a totp device\.)?$/,
  /^only TOTP devices can be imported \(otpauth:\/\/hotp\)( for a totp device\.)?$/,
  /^(secret|algorithm|digits|period) in the otpauth URL conflicts with [a-zA-Z]+( for a totp device\.)?$/,
  /^Invalid secretEncoding\. Pass one of base32, hex, base64, raw or, otpauth!( for a totp device\.)?$/,
  /^Invalid algorithm\. Pass one of SHA1, SHA256 or, SHA512!( for a totp device\.)?$/,
  /^digits should be 6, 7 or 8( for a totp device\.)?$/,
  /^TOTP deviceName .* is (too long\. Max length is 256|not unique for this user)\.$/s,
  text('t0 other than 0 is not supported for a totp device.'),
  text('recoveryCodes should be an array of strings or objects.'),
  /^Either code or \(hash, hashingAlgorithm\) is required( for a recovery code\.)?$/,
  /^Invalid hashingAlgorithm\. Pass one of bcrypt, sha256 or, sha512!( for a recovery code\.)?$/,
  /^code should be 6 to 64 characters( for a recovery code\.)?$/,
  text('recoveryCodes contains duplicate codes'),
  text('recoveryCodes can contain at most 32 codes'),
  // Tenants (contract-multitenancy T-7)
  text('tenantId should not be an empty String'),
  /^Cannot use '[^]*' as a tenantId$/,
  text("tenantId must not start with 'appid-'"),
  text('tenantId can only contain letters, numbers and hyphens'),
  text('tenantId is too long. Max length is 64.'),
  /^(emailPasswordEnabled|thirdParty|passwordless) is not a valid input for this API$/,
  /^(firstFactors|requiredSecondaryFactors) input should not contain duplicate values$/,
  /^(firstFactors|requiredSecondaryFactors) should contain only 0-9,a-z,A-Z,_,\.,- characters$/,
  /^Invalid core config: [^]+$/,
  text('Cannot modify base config'),
  /^Invalid third party config: [^]+$/,
];

// The `message` of a session's TRY_REFRESH_TOKEN or UNAUTHORISED result (S-4.10), answered inside a 200 body.
const sessionResultMessages: RegExp[] = [
  text('Access token expired'),
  text('Key not found'),
  text('anti-csrf check failed'),
  /^Access token does not contain all the information\. Maybe the structure has changed\? [A-Za-z0-9]+$/,
  text('Invalid JWT'),
  text('JWT verification failed'),
  text('Invalid access token'),
  text('Either the session has ended or has been blacklisted'),
  text('Session missing in db'),
  text('rotated-out token branch; refresh required'),
  text('Anti CSRF token missing, or not matching'),
  text('Session missing in db or has expired'),
  text('refresh token reuse detected'),
  text('Session does not exist.'),
  text('Invalid refresh token'),
];

const byStatus: Record<number, RegExp[]> = {
  200: sessionResultMessages,
  400: badRequest,
  401: [text('Invalid API key')],
  403: [
    text('Only public tenantId can call this app specific API'),
    text('You must use the public or same tenant to add/update a tenant'),
    text('Cannot delete public tenant, use remove app API instead'),
    text('Only the public tenantId is allowed to delete a tenant'),
    text('Only the public tenantId is allowed to list all tenants associated with this app'),
    text('Email password login not enabled for tenant'),
    text('Passwordless login not enabled for tenant'),
    text('Third Party login not enabled for tenant'),
  ],
  404: [text('Not found')],
  405: [text('Method not supported')],
  413: [/^Request body is larger than the limit of \d+ bytes$/],
};

export function isContractError(statusCode: number, body: string): boolean {
  const trimmed = body.endsWith('\n') ? body.slice(0, -1) : body;
  if (statusCode === 400 && isBulkJsonError(trimmed)) return true;
  return (byStatus[statusCode] ?? []).some((pattern) => pattern.test(trimmed));
}

// Bulk import answers its validation failures as JSON text (contract §10.3, §10.6).
function isBulkJsonError(body: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return false;
  }
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort().join(',');
  if (keys === 'errors') return Array.isArray(record.errors) && record.errors.every((item) => typeof item === 'string');
  if (keys === 'error') return record.error === 'You can only add 10000 users at a time.';
  if (keys === 'error,users') {
    return (
      record.error === 'Data has missing or invalid fields. Please check the users field for more details.' && Array.isArray(record.users)
    );
  }
  return false;
}
