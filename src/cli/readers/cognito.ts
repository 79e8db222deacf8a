import type { SourceRecord } from '../bulk-user.js';
import { CliError } from '../cli-error.js';
import { assembleRecord, compact, nonEmpty, parseTime } from './assemble.js';
import type { FileSource } from './file-source.js';
import { JsonStreamError, streamJsonArray, UnreadableElement } from './json-array-stream.js';
import { pendingMethod } from './pending-method.js';

export interface PendingReaderOptions {
  /** The target core's lazy-migration source that will verify these users' passwords. */
  lazySource: string;
  includeDisabled: boolean;
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
  if (Array.isArray(user.Attributes)) {
    for (const attribute of user.Attributes as Record<string, unknown>[]) {
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
    metadata: compact({ cognitoUsername: username, name: attributes.get('name') }),
  });
}
