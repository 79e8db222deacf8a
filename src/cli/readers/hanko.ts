import type { LoginMethod, SourceRecord } from '../bulk-user.js';
import { CliError } from '../cli-error.js';
import { assembleRecord, compact, nonEmpty, parseTime, type Candidate } from './assemble.js';
import { asObject, nonEmptyObject, type CarryContext } from './carry.js';
import type { FileSource } from './file-source.js';
import { JsonStreamError, streamJsonArray, UnreadableElement } from './json-array-stream.js';
import { carryPasskeys, uuidOf, type FoundPasskey } from './passkeys.js';
import type { ProviderOverrides } from './provider-names.js';

export interface HankoOptions {
  includeDisabled: boolean;
  providerOverrides: ProviderOverrides;
  carry?: CarryContext;
}

/**
 * Hanko users as its admin API answers `GET /users/{id}`, joined into one JSON array (or `{"users": [...]}`):
 * `emails[]`, `webauthn_credentials[]`, `identities[]`, `username`, `created_at`. The admin API gives out no password
 * hash: a password user signs in with a passkey or a code sent to the email, and may set a new password.
 */
export async function* readHanko(source: FileSource, options: HankoOptions): AsyncGenerator<SourceRecord> {
  let index = 0;
  try {
    for await (const user of streamJsonArray(source.chunks(), 'users')) {
      yield user instanceof UnreadableElement
        ? assembleRecord({ index: index++, candidates: [], invalidReason: `users[${index - 1}] ${user.reason}` })
        : hankoRecord(asObject(user) ?? {}, index++, options);
    }
  } catch (error) {
    if (error instanceof JsonStreamError)
      throw new CliError(`${source.path}: ${error.message} (expected admin API users: a JSON array of GET /users/{id} answers)`);
    throw error;
  }
}

export function hankoRecord(user: Record<string, unknown>, index: number, options: HankoOptions): SourceRecord {
  const id = nonEmpty(user.id);
  const emails = (Array.isArray(user.emails) ? user.emails : []).map((e) => asObject(e) ?? {});
  const primary = emails.find((email) => email.is_primary === true) ?? emails[0];
  const email = nonEmpty(primary?.address);
  const timeJoined = parseTime(user.created_at);
  const common = compact({ isVerified: primary?.is_verified === true, timeJoinedInMSSinceEpoch: timeJoined });
  const notCarried: string[] = [];
  const candidates: Candidate[] = [];

  const found = (Array.isArray(user.webauthn_credentials) ? user.webauthn_credentials : []).map((c, position) =>
    passkeyOf(asObject(c) ?? {}, position, id),
  );
  const passkeys = carryPasskeys(found, email, common, options.carry?.passkeys);
  // Hanko signs users in with a passkey first: it is the primary login method when it is a sign-in passkey.
  if (passkeys.candidate !== undefined && !found.every((passkey) => passkey.secondFactor)) candidates.push(passkeys.candidate);
  if (email !== undefined) candidates.push({ method: compact({ recipeId: 'passwordless' as const, email, ...common }) });
  if (passkeys.candidate !== undefined && found.every((passkey) => passkey.secondFactor)) candidates.push(passkeys.candidate);
  notCarried.push(...passkeys.notCarried);
  for (const identity of (Array.isArray(user.identities) ? user.identities : []).map((i) => asObject(i) ?? {})) {
    const provider = nonEmpty(identity.provider_name) ?? nonEmpty(identity.provider) ?? 'unknown';
    const method: LoginMethod = compact({
      recipeId: 'thirdparty' as const,
      email: nonEmpty(identity.email) ?? email,
      thirdPartyId: options.providerOverrides.get(provider) ?? provider,
      thirdPartyUserId: nonEmpty(identity.provider_id),
      ...common,
    });
    candidates.push({ method, problem: method.thirdPartyUserId ? undefined : `${provider} identity has no provider_id` });
  }
  if (asObject(user.password) !== undefined)
    notCarried.push('password: the admin API gives out no hash; the user signs in with a passkey or an email code');
  if (asObject(user.otp) !== undefined) notCarried.push('otp: the admin API gives out no TOTP secret; marked to re-enrol');

  const reEnrol = [...(passkeys.reEnrol ? (['webauthn'] as const) : []), ...(asObject(user.otp) !== undefined ? (['totp'] as const) : [])];
  return assembleRecord({
    index,
    externalUserId: id,
    candidates,
    invalidReason: timeJoined !== undefined && Number.isNaN(timeJoined) ? `created_at ${String(user.created_at)} is not a time` : undefined,
    metadata: {
      username: nonEmpty(asObject(user.username)?.username) ?? nonEmpty(user.username),
      name: nonEmpty(user.name),
      givenName: nonEmpty(user.given_name),
      familyName: nonEmpty(user.family_name),
      picture: nonEmpty(user.picture),
      userMetadata: nonEmptyObject(asObject(user.metadata)?.public_metadata),
      appMetadata: nonEmptyObject(asObject(user.metadata)?.private_metadata),
    },
    notCarried,
    extras: { reEnrol: [...reEnrol], passkeys },
    carry: options.carry,
  });
}

/**
 * One of `webauthn_credentials`: `id` (base64url of the raw id), `public_key` (base64url COSE key), `aaguid` (UUID),
 * `transports`, `mfa_only` (a second factor), `created_at`. Hanko registers passkeys with the 16 bytes of the user's
 * UUID as the user handle; the RP ID is the server's `webauthn.relying_party.id`, given by --rp-id. The admin API
 * gives out no signature counter (0).
 */
function passkeyOf(credential: Record<string, unknown>, position: number, userId: string | undefined): FoundPasskey {
  const transports = Array.isArray(credential.transports) ? credential.transports.filter((t): t is string => typeof t === 'string') : [];
  const created = parseTime(credential.created_at);
  const uuidHex = userId?.replace(/-/g, '');
  return compact({
    where: `webauthn_credentials[${position}]`,
    secondFactor: credential.mfa_only === true,
    credentialId: nonEmpty(credential.id),
    publicKey: nonEmpty(credential.public_key),
    aaguid: uuidOf(credential.aaguid),
    transports: transports.length > 0 ? transports : undefined,
    userHandle: uuidHex !== undefined && /^[0-9a-f]{32}$/i.test(uuidHex) ? Buffer.from(uuidHex, 'hex') : undefined,
    createdAt: created !== undefined && Number.isFinite(created) ? created : undefined,
  });
}
