import type { SourceRecord } from '../bulk-user.js';
import { CliError } from '../cli-error.js';
import { assembleRecord, compact, nonEmpty, parseTime } from './assemble.js';
import type { PendingReaderOptions } from './cognito.js';
import type { FileSource } from './file-source.js';
import { JsonStreamError, streamJsonArray, UnreadableElement } from './json-array-stream.js';
import { pendingMethod } from './pending-method.js';

// Users in these states cannot sign in at Okta with a password (STAGED and PROVISIONED never set one).
const NO_USABLE_PASSWORD: Record<string, string> = {
  STAGED: 'was never activated',
  PROVISIONED: 'has not set a password yet',
  DEPROVISIONED: 'was deactivated',
  SUSPENDED: 'is suspended',
};
// Credentials Okta itself verifies; other providers (an AD or LDAP agent, a social provider) do not take /authn.
const OKTA_PASSWORD_PROVIDERS = new Set(['OKTA', 'IMPORT']);

/** The Okta users API (`GET /api/v1/users`) as a JSON array of users, or `{"users": [...]}`. */
export async function* readOkta(source: FileSource, options: PendingReaderOptions): AsyncGenerator<SourceRecord> {
  let index = 0;
  try {
    for await (const user of streamJsonArray(source.chunks(), 'users')) {
      yield user instanceof UnreadableElement
        ? assembleRecord({ index: index++, candidates: [], invalidReason: `users[${index - 1}] ${user.reason}` })
        : oktaRecord(user as Record<string, unknown>, index++, options);
    }
  } catch (error) {
    if (error instanceof JsonStreamError)
      throw new CliError(`${source.path}: ${error.message} (expected the users API answer: a JSON array)`);
    throw error;
  }
}

export function oktaRecord(user: Record<string, unknown>, index: number, options: PendingReaderOptions): SourceRecord {
  const profile = (user.profile ?? {}) as Record<string, unknown>;
  const provider = ((user.credentials as Record<string, unknown> | undefined)?.provider ?? {}) as Record<string, unknown>;
  const id = nonEmpty(user.id);
  const login = nonEmpty(profile.login);
  const email = nonEmpty(profile.email);
  const status = nonEmpty(user.status) ?? '';
  const providerType = nonEmpty(provider.type) ?? 'OKTA';
  const timeJoined = parseTime(user.created);
  const method = pendingMethod(options.lazySource, email, compact({ timeJoinedInMSSinceEpoch: timeJoined }), { login, legacyUserId: id });
  const problem = !email ? 'no profile.email: the core signs email-password users in by email' : !login ? 'no profile.login' : undefined;
  const unusable = NO_USABLE_PASSWORD[status];
  return assembleRecord({
    index,
    externalUserId: id,
    candidates: [{ method, problem }],
    invalidReason: timeJoined !== undefined && Number.isNaN(timeJoined) ? `created ${String(user.created)} is not a time` : undefined,
    skipReason:
      unusable !== undefined
        ? `status ${status}: the user ${unusable}, so there is no password to adopt (send a reset instead)`
        : !OKTA_PASSWORD_PROVIDERS.has(providerType)
          ? `credentials.provider.type ${providerType}: Okta does not check this user's password itself`
          : undefined,
    metadata: compact({ firstName: nonEmpty(profile.firstName), lastName: nonEmpty(profile.lastName) }),
  });
}
