import type { LoginMethod, SourceRecord } from '../bulk-user.js';
import { CliError } from '../cli-error.js';
import { parseLine } from './generic.js';
import { assembleRecord, compact, nonEmpty, parseBoolean, parseTime, type Candidate } from './assemble.js';
import type { Auth0PasswordHashes } from './auth0-hashes.js';
import type { FileSource } from './file-source.js';
import { pendingMethod } from './pending-method.js';
import type { CarryContext } from './carry.js';
import { auth0ThirdPartyId, type ProviderOverrides } from './provider-names.js';
import { auth0Passkeys, type Auth0AuthenticationMethods } from './auth0-passkeys.js';
import { carryPasskeys } from './passkeys.js';

export interface Auth0Options {
  /** Undefined when --password-hashes was not given. */
  hashes?: Auth0PasswordHashes;
  includeDisabled: boolean;
  providerOverrides: ProviderOverrides;
  /** Database users without a hash are imported pending for this lazy-migration source. */
  lazySource?: string;
  carry?: CarryContext;
  /** `GET /api/v2/users/{id}/authentication-methods` answers by user id (--authentication-methods). */
  authenticationMethods?: Auth0AuthenticationMethods;
}

interface Identity {
  provider: string;
  userId?: string;
  email?: string;
  phoneNumber?: string;
}

// Database (password) identities first, social ones next, passwordless last: see assembleRecord.
const RANK = (identity: Identity) =>
  identity.provider === 'auth0' ? 0 : identity.provider === 'email' || identity.provider === 'sms' ? 2 : 1;

export async function* readAuth0(source: FileSource, options: Auth0Options): AsyncGenerator<SourceRecord> {
  let index = 0;
  for await (const line of source.lines()) {
    const parsed = parseLine(line);
    if (parsed === undefined) continue;
    if ('reason' in parsed) {
      // A first line that is not JSON is a file in another format, not one bad record.
      if (index === 0) {
        throw new CliError(
          `${source.path} record 1 ${parsed.reason}: the user export must be NDJSON (format "json"), or CSV named .csv or read with --format csv`,
        );
      }
      yield assembleRecord({ index: index++, candidates: [], invalidReason: parsed.reason });
      continue;
    }
    yield auth0Record(parsed.row, index++, options);
  }
}

export function auth0Record(user: Record<string, unknown>, index: number, options: Auth0Options): SourceRecord {
  const userId = nonEmpty(user.user_id ?? user.Id);
  const email = nonEmpty(user.email);
  const timeJoined = parseTime(user.created_at);
  const common = compact({ isVerified: parseBoolean(user.email_verified) ?? false, timeJoinedInMSSinceEpoch: timeJoined });
  const candidates = identitiesOf(user, userId)
    .sort((a, b) => RANK(a) - RANK(b))
    .map((identity) => candidateFor(identity, email, nonEmpty(user.phone_number), userId, common, options));
  const found = userId === undefined ? [] : auth0Passkeys(options.authenticationMethods?.get(userId));
  const passkeys = carryPasskeys(found, email, common, options.carry?.passkeys);
  if (passkeys.candidate !== undefined) candidates.push(passkeys.candidate);
  const reEnrol = hasMultifactor(user) ? (['totp'] as const).slice() : [];
  return assembleRecord({
    index,
    externalUserId: userId,
    candidates,
    invalidReason: timeJoined !== undefined && Number.isNaN(timeJoined) ? `created_at ${String(user.created_at)} is not a time` : undefined,
    skipReason:
      parseBoolean(user.blocked) === true && !options.includeDisabled
        ? 'blocked in the source (pass --include-disabled to import blocked users)'
        : undefined,
    metadata: {
      userMetadata: objectOrUndefined(user.user_metadata),
      appMetadata: objectOrUndefined(user.app_metadata),
      username: nonEmpty(user.username),
      name: nonEmpty(user.name),
      nickname: nonEmpty(user.nickname),
      givenName: nonEmpty(user.given_name),
      familyName: nonEmpty(user.family_name),
      picture: nonEmpty(user.picture),
    },
    notCarried: [
      ...(hasMultifactor(user)
        ? [`multifactor ${JSON.stringify(user.multifactor)}: the user export holds no second-factor secret; marked to re-enrol`]
        : []),
      ...passkeys.notCarried,
    ],
    extras: { roles: rolesOf(user.roles), reEnrol: passkeys.reEnrol ? [...reEnrol, 'webauthn'] : reEnrol, passkeys },
    carry: options.carry,
  });
}

function hasMultifactor(user: Record<string, unknown>): boolean {
  return Array.isArray(user.multifactor) && user.multifactor.length > 0;
}

// Roles are not in Auth0's user export: a `roles` list added to each user from the Management API
// (`GET /api/v2/users/{id}/roles`: objects with `name`) or as names, as SuperTokens' Auth0 guide writes them.
function rolesOf(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value
    .map((role) => (typeof role === 'string' ? role : nonEmpty((role as Record<string, unknown> | null)?.name)))
    .filter((role): role is string => typeof role === 'string' && role.trim() !== '');
}

function objectOrUndefined(value: unknown): Record<string, unknown> | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  return Object.keys(value).length === 0 ? undefined : (value as Record<string, unknown>);
}

function candidateFor(
  identity: Identity,
  email: string | undefined,
  phoneNumber: string | undefined,
  userId: string | undefined,
  common: Partial<LoginMethod>,
  options: Auth0Options,
): Candidate {
  if (identity.provider === 'auth0') {
    const method: LoginMethod = compact({ recipeId: 'emailpassword' as const, email, hashingAlgorithm: 'bcrypt', ...common });
    if (!email) return { method, problem: 'database user without an email' };
    const found = options.hashes?.find(email, userId);
    if (options.lazySource !== undefined && (!found || 'problem' in found)) {
      return { method: pendingMethod(options.lazySource, email, common, { legacyUserId: userId }) };
    }
    if (!found) return { method, problem: 'no password hash: pass --password-hashes <file> (the password-hash export), or --lazy-source' };
    if ('problem' in found) return { method, problem: found.problem };
    return { method: { ...method, passwordHash: found.hash } };
  }
  if (identity.provider === 'email' || identity.provider === 'sms') {
    const method: LoginMethod = compact({
      recipeId: 'passwordless' as const,
      email: identity.provider === 'email' ? (identity.email ?? email) : undefined,
      phoneNumber: identity.provider === 'sms' ? (identity.phoneNumber ?? phoneNumber) : undefined,
      ...common,
    });
    return {
      method,
      problem:
        method.email || method.phoneNumber
          ? undefined
          : `${identity.provider} identity without ${identity.provider === 'sms' ? 'a phone number' : 'an email'}`,
    };
  }
  const method: LoginMethod = compact({
    recipeId: 'thirdparty' as const,
    email: identity.email ?? email,
    thirdPartyId: auth0ThirdPartyId(identity.provider, options.providerOverrides),
    thirdPartyUserId: identity.userId,
    ...common,
  });
  const problem = !method.thirdPartyUserId
    ? `${identity.provider} identity has no user_id`
    : !method.email
      ? `${identity.provider} identity has no email (the core needs one for third-party users)`
      : undefined;
  return { method, problem };
}

// Exports made without the `identities` field still carry the provider in `user_id` (`google-oauth2|123`).
function identitiesOf(user: Record<string, unknown>, userId: string | undefined): Identity[] {
  if (Array.isArray(user.identities) && user.identities.length > 0) {
    return (user.identities as Record<string, unknown>[])
      .filter((identity) => identity !== null && typeof identity === 'object' && nonEmpty(identity.provider) !== undefined)
      .map((identity) => {
        const profile = (identity.profileData ?? {}) as Record<string, unknown>;
        return compact({
          provider: nonEmpty(identity.provider) as string,
          userId: nonEmpty(identity.user_id),
          email: nonEmpty(profile.email),
          phoneNumber: nonEmpty(profile.phone_number),
        });
      });
  }
  const separator = userId?.indexOf('|') ?? -1;
  if (userId === undefined || separator <= 0) return [];
  return [{ provider: userId.slice(0, separator), userId: userId.slice(separator + 1) }];
}
