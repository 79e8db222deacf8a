import type { SourceRecord } from '../bulk-user.js';
import { CliError } from '../cli-error.js';
import { assembleRecord, compact, nonEmpty, parseTime } from './assemble.js';
import type { PendingReaderOptions } from './cognito.js';
import type { FileSource } from './file-source.js';
import { JsonStreamError, streamJsonArray, UnreadableElement } from './json-array-stream.js';
import { pendingMethod } from './pending-method.js';
import type { FactorId } from './carry.js';

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
  const factors = factorsOf(user.factors);
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
    metadata: { firstName: nonEmpty(profile.firstName), lastName: nonEmpty(profile.lastName), ...profileClaims(profile, options) },
    notCarried: factors.notCarried,
    extras: { roles: groupsOf(user.groups), phoneFactors: factors.phoneFactors, reEnrol: factors.reEnrol },
    carry: options.carry,
  });
}

// What the sign-in itself uses, or is kept above under its own key.
const PROFILE_KEYS_USED = new Set(['login', 'email', 'firstName', 'lastName']);

// The rest of the profile (base and custom attributes) is admin-set unless the schema lets users edit an attribute,
// which the mapping's userEditableClaims says.
function profileClaims(profile: Record<string, unknown>, options: PendingReaderOptions) {
  const trusted: Record<string, unknown> = {};
  const editable: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(profile)) {
    if (PROFILE_KEYS_USED.has(name) || value === null || value === undefined || value === '') continue;
    (options.carry?.mapping?.userEditableClaims.has(name) ? editable : trusted)[name] = value;
  }
  return {
    appMetadata: Object.keys(trusted).length > 0 ? trusted : undefined,
    userMetadata: Object.keys(editable).length > 0 ? editable : undefined,
  };
}

// Neither groups nor factors are in the users API answer: `groups` (GET /api/v1/users/{id}/groups) and `factors`
// (GET /api/v1/users/{id}/factors) are added to each user. The built-in "Everyone" group is everyone's and is left out.
function groupsOf(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return (value as Record<string, unknown>[])
    .filter((group) => group !== null && typeof group === 'object' && group.type !== 'BUILT_IN')
    .map((group) => nonEmpty((group.profile as Record<string, unknown> | undefined)?.name))
    .filter((name): name is string => name !== undefined);
}

// Okta never exports a factor's secret. An active SMS factor carries its number; the others are marked to re-enrol.
const REENROL: Record<string, FactorId> = {
  'token:software:totp': 'totp',
  'token:hotp': 'totp',
  push: 'totp',
  signed_nonce: 'totp',
  'token:hardware': 'totp',
  token: 'totp',
  call: 'otp-phone',
  email: 'otp-email',
  webauthn: 'webauthn',
  u2f: 'webauthn',
};

function factorsOf(value: unknown) {
  const phoneFactors: string[] = [];
  const reEnrol: FactorId[] = [];
  const notCarried: string[] = [];
  if (!Array.isArray(value)) return { phoneFactors, reEnrol, notCarried };
  for (const factor of value as Record<string, unknown>[]) {
    if (factor === null || typeof factor !== 'object' || factor.status !== 'ACTIVE') continue;
    const type = nonEmpty(factor.factorType) ?? 'unknown';
    const phone = nonEmpty((factor.profile as Record<string, unknown> | undefined)?.phoneNumber);
    if (type === 'sms' && phone !== undefined) {
      phoneFactors.push(phone);
      continue;
    }
    const factorId = REENROL[type] ?? (type === 'sms' ? 'otp-phone' : undefined);
    if (factorId === undefined) {
      notCarried.push(`factor ${type}: the core has no such factor`);
      continue;
    }
    reEnrol.push(factorId);
    notCarried.push(`factor ${type}: Okta never exports its secret; marked to re-enrol (${factorId})`);
  }
  return { phoneFactors, reEnrol, notCarried };
}
