import type { SourceRecord } from '../bulk-user.js';
import { CliError } from '../cli-error.js';
import { assembleRecord, compact, nonEmpty, parseTime } from './assemble.js';
import type { FileSource } from './file-source.js';
import { JsonStreamError, streamJsonArray, UnreadableElement } from './json-array-stream.js';
import { pendingMethod } from './pending-method.js';
import type { CarryContext, FactorId } from './carry.js';

export interface PendingReaderOptions {
  /** The target core's lazy-migration source that will verify these users' passwords. */
  lazySource: string;
  includeDisabled: boolean;
  carry?: CarryContext;
}

// Statuses whose users have no password Cognito can check: they must reset it, so they are not imported as pending.
const NO_USABLE_PASSWORD: Record<string, string> = {
  UNCONFIRMED: 'never confirmed their account',
  RESET_REQUIRED: 'must reset their password at Cognito',
  FORCE_CHANGE_PASSWORD: 'still has the temporary password an administrator set',
  EXTERNAL_PROVIDER: 'signs in through an external identity provider, not a password',
};

/** `aws cognito-idp list-users` output: `{"Users": [...]}` (the CLI joins the pages), or a JSON array of users. */
export async function* readCognito(source: FileSource, options: PendingReaderOptions): AsyncGenerator<SourceRecord> {
  let index = 0;
  try {
    for await (const user of streamJsonArray(source.chunks(), 'Users')) {
      yield user instanceof UnreadableElement
        ? assembleRecord({ index: index++, candidates: [], invalidReason: `Users[${index - 1}] ${user.reason}` })
        : cognitoRecord(user as Record<string, unknown>, index++, options);
    }
  } catch (error) {
    if (error instanceof JsonStreamError)
      throw new CliError(`${source.path}: ${error.message} (expected the list-users output: {"Users": [...]})`);
    throw error;
  }
}

export function cognitoRecord(user: Record<string, unknown>, index: number, options: PendingReaderOptions): SourceRecord {
  const attributes = new Map<string, string>();
  // list-users writes `Attributes`; admin-get-user, whose answer also names the MFA settings, `UserAttributes`.
  const list = user.Attributes ?? user.UserAttributes;
  if (Array.isArray(list)) {
    for (const attribute of list as Record<string, unknown>[]) {
      const name = nonEmpty(attribute?.Name);
      const value = nonEmpty(attribute?.Value);
      if (name !== undefined && value !== undefined) attributes.set(name, value);
    }
  }
  const username = nonEmpty(user.Username);
  const sub = attributes.get('sub');
  const email = attributes.get('email');
  const status = nonEmpty(user.UserStatus) ?? '';
  const timeJoined = parseTime(user.UserCreateDate);
  const common = compact({ isVerified: attributes.get('email_verified') === 'true', timeJoinedInMSSinceEpoch: timeJoined });
  const method = pendingMethod(options.lazySource, email, common, { login: username, legacyUserId: sub });
  const problem = !email ? 'no email: the core signs email-password users in by email' : !username ? 'no Username' : undefined;
  const unusable = NO_USABLE_PASSWORD[status];
  const mfa = mfaOf(user, attributes);
  return assembleRecord({
    index,
    externalUserId: sub ?? username,
    candidates: [{ method, problem }],
    invalidReason:
      timeJoined !== undefined && Number.isNaN(timeJoined) ? `UserCreateDate ${String(user.UserCreateDate)} is not a time` : undefined,
    skipReason:
      unusable !== undefined
        ? `UserStatus ${status}: the user ${unusable}, so there is no password to adopt (send a reset instead)`
        : user.Enabled === false && !options.includeDisabled
          ? 'disabled in the source (pass --include-disabled to import disabled users)'
          : undefined,
    metadata: {
      cognitoUsername: username,
      name: attributes.get('name'),
      givenName: attributes.get('given_name'),
      familyName: attributes.get('family_name'),
      picture: attributes.get('picture'),
      ...customAttributes(attributes, options),
    },
    notCarried: mfa.notCarried,
    extras: { roles: groupsOf(user.Groups), phoneFactors: mfa.phoneFactors, reEnrol: mfa.reEnrol },
    carry: options.carry,
  });
}

// `custom:<name>` attributes lose the prefix; the app client decides at Cognito who may write them, so the mapping's
// userEditableClaims (by full name) says which users could edit.
function customAttributes(attributes: Map<string, string>, options: PendingReaderOptions) {
  const trusted: Record<string, string> = {};
  const editable: Record<string, string> = {};
  for (const [name, value] of attributes) {
    if (!name.startsWith('custom:')) continue;
    const target = options.carry?.mapping?.userEditableClaims.has(name) ? editable : trusted;
    target[name.slice('custom:'.length)] = value;
  }
  return {
    appMetadata: Object.keys(trusted).length > 0 ? trusted : undefined,
    userMetadata: Object.keys(editable).length > 0 ? editable : undefined,
  };
}

// Groups are not in list-users: `Groups` added to each user from admin-list-groups-for-user (objects with
// `GroupName`) or as names.
function groupsOf(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value
    .map((group) => (typeof group === 'string' ? group : nonEmpty((group as Record<string, unknown> | null)?.GroupName)))
    .filter((group): group is string => group !== undefined && group.trim() !== '');
}

// Cognito never exports a TOTP seed; an SMS factor is the user's phone_number attribute and is carried. The settings
// come from admin-get-user (`UserMFASettingList`) or, for SMS, list-users' legacy `MFAOptions`.
function mfaOf(user: Record<string, unknown>, attributes: Map<string, string>) {
  const settings = new Set(Array.isArray(user.UserMFASettingList) ? (user.UserMFASettingList as unknown[]).map(String) : []);
  if (Array.isArray(user.MFAOptions) && (user.MFAOptions as Record<string, unknown>[]).some((option) => option?.DeliveryMedium === 'SMS')) {
    settings.add('SMS_MFA');
  }
  const phoneFactors: string[] = [];
  const reEnrol: FactorId[] = [];
  const notCarried: string[] = [];
  if (settings.has('SOFTWARE_TOKEN_MFA')) {
    reEnrol.push('totp');
    notCarried.push('SOFTWARE_TOKEN_MFA: Cognito never exports TOTP secrets; marked to re-enrol');
  }
  if (settings.has('SMS_MFA')) {
    const phone = attributes.get('phone_number');
    if (phone !== undefined) phoneFactors.push(phone);
    else {
      reEnrol.push('otp-phone');
      notCarried.push('SMS_MFA: no phone_number attribute; marked to re-enrol');
    }
  }
  if (settings.has('EMAIL_OTP')) {
    reEnrol.push('otp-email');
    notCarried.push('EMAIL_OTP: email second factors are not carried; marked to re-enrol');
  }
  return { phoneFactors, reEnrol, notCarried };
}
