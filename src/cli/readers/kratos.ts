import type { LoginMethod, SourceRecord } from '../bulk-user.js';
import { CliError } from '../cli-error.js';
import { assembleRecord, compact, nonEmpty, parseTime, type Candidate } from './assemble.js';
import { asObject, nonEmptyObject, type CarryContext } from './carry.js';
import type { FileSource } from './file-source.js';
import { JsonStreamError, streamJsonArray, UnreadableElement } from './json-array-stream.js';
import { carryPasskeys, fromBase64, uuidOf, type FoundPasskey } from './passkeys.js';
import type { ProviderOverrides } from './provider-names.js';

export interface KratosOptions {
  includeDisabled: boolean;
  providerOverrides: ProviderOverrides;
  carry?: CarryContext;
}

/**
 * Ory Kratos identities as the admin API lists them with their credentials
 * (`GET /admin/identities?include_credential=password&include_credential=oidc&include_credential=webauthn&include_credential=passkey`,
 * pages joined into one JSON array, or `{"identities": [...]}`): traits, verifiable addresses, and per credential
 * type its `config`.
 */
export async function* readKratos(source: FileSource, options: KratosOptions): AsyncGenerator<SourceRecord> {
  let index = 0;
  try {
    for await (const identity of streamJsonArray(source.chunks(), 'identities')) {
      yield identity instanceof UnreadableElement
        ? assembleRecord({ index: index++, candidates: [], invalidReason: `identities[${index - 1}] ${identity.reason}` })
        : kratosRecord(asObject(identity) ?? {}, index++, options);
    }
  } catch (error) {
    if (error instanceof JsonStreamError)
      throw new CliError(`${source.path}: ${error.message} (expected the admin API's identities: a JSON array)`);
    throw error;
  }
}

export function kratosRecord(identity: Record<string, unknown>, index: number, options: KratosOptions): SourceRecord {
  const traits = asObject(identity.traits) ?? {};
  const addresses = (Array.isArray(identity.verifiable_addresses) ? identity.verifiable_addresses : []).map((a) => asObject(a) ?? {});
  const emailAddress = addresses.find((address) => address.via === 'email');
  const email = nonEmpty(traits.email) ?? nonEmpty(emailAddress?.value);
  const verified = addresses.some((address) => address.via === 'email' && address.value === email && address.verified === true);
  const timeJoined = parseTime(identity.created_at);
  const common = compact({ isVerified: verified, timeJoinedInMSSinceEpoch: timeJoined });
  const credentials = asObject(identity.credentials) ?? {};
  const candidates: Candidate[] = [];
  const notCarried: string[] = [];

  const password = asObject(asObject(credentials.password)?.config);
  if (password !== undefined) {
    const hash = nonEmpty(password.hashed_password);
    const algorithm = hash?.startsWith('$2') ? 'bcrypt' : hash?.startsWith('$argon2') ? 'argon2' : undefined;
    const method: LoginMethod = compact({ recipeId: 'emailpassword' as const, email, ...common });
    candidates.push(
      hash === undefined
        ? { method, problem: 'password credential without hashed_password' }
        : algorithm === undefined
          ? { method, problem: `password hash ${hash.split('$')[1] ?? 'format'} is not bcrypt or argon2` }
          : {
              method: { ...method, passwordHash: hash, hashingAlgorithm: algorithm },
              problem: email ? undefined : 'password user without an email',
            },
    );
  }
  const providers = asObject(asObject(credentials.oidc)?.config)?.providers;
  for (const provider of Array.isArray(providers) ? providers.map((p) => asObject(p) ?? {}) : []) {
    const name = nonEmpty(provider.provider) ?? 'unknown';
    const method: LoginMethod = compact({
      recipeId: 'thirdparty' as const,
      email,
      thirdPartyId: options.providerOverrides.get(name) ?? name,
      thirdPartyUserId: nonEmpty(provider.subject),
      ...common,
    });
    candidates.push({
      method,
      problem: !method.thirdPartyUserId ? `${name} provider has no subject` : !email ? `${name}: the identity has no email` : undefined,
    });
  }
  for (const type of Object.keys(credentials)) {
    if (!['password', 'oidc', 'webauthn', 'passkey'].includes(type)) notCarried.push(`credentials.${type}: not carried by this reader`);
  }

  const found = [...passkeysOf(credentials.webauthn, 'webauthn'), ...passkeysOf(credentials.passkey, 'passkey')];
  const passkeys = carryPasskeys(found, email, common, options.carry?.passkeys);
  if (passkeys.candidate !== undefined) candidates.push(passkeys.candidate);
  notCarried.push(...passkeys.notCarried);

  const state = nonEmpty(identity.state);
  return assembleRecord({
    index,
    externalUserId: nonEmpty(identity.id),
    candidates,
    invalidReason:
      timeJoined !== undefined && Number.isNaN(timeJoined) ? `created_at ${String(identity.created_at)} is not a time` : undefined,
    skipReason:
      state === 'inactive' && !options.includeDisabled
        ? 'inactive in the source (pass --include-disabled to import inactive identities)'
        : candidates.length === 0
          ? 'no password, social sign-in or passkey: nothing to sign in with'
          : undefined,
    metadata: {
      traits: nonEmptyObject(traits),
      appMetadata: nonEmptyObject(identity.metadata_admin),
      userMetadata: nonEmptyObject(identity.metadata_public),
    },
    notCarried,
    extras: { reEnrol: passkeys.reEnrol ? ['webauthn'] : [], passkeys },
    carry: options.carry,
  });
}

/**
 * `credentials.webauthn.config` / `credentials.passkey.config`: `user_handle` (base64) and `credentials[]` with `id`
 * (base64 of the raw id), `public_key` (base64 COSE key), `authenticator.{aaguid (base64), sign_count}`,
 * `transport`, `is_passwordless` (webauthn: a sign-in method, else a second factor; passkey: always sign-in),
 * `added_at`. The RP ID is the server's `selfservice.methods.webauthn|passkey.config.rp.id`, given by --rp-id.
 */
function passkeysOf(value: unknown, type: 'webauthn' | 'passkey'): FoundPasskey[] {
  const config = asObject(asObject(value)?.config);
  if (config === undefined) return [];
  const handleText = nonEmpty(config.user_handle);
  const userHandle = handleText === undefined ? undefined : fromBase64(handleText);
  const list = Array.isArray(config.credentials) ? config.credentials.map((c) => asObject(c) ?? {}) : [];
  return list.map((credential, position) => {
    const authenticator = asObject(credential.authenticator) ?? {};
    const transport = credential.transport ?? credential.transports;
    const transports = Array.isArray(transport) ? transport.filter((t): t is string => typeof t === 'string') : [];
    const counter = authenticator.sign_count;
    const added = parseTime(credential.added_at);
    return compact({
      where: `credentials.${type}.config.credentials[${position}]`,
      secondFactor: type === 'webauthn' && credential.is_passwordless !== true,
      credentialId: nonEmpty(credential.id),
      publicKey: nonEmpty(credential.public_key),
      counter: typeof counter === 'number' && Number.isSafeInteger(counter) ? counter : undefined,
      aaguid: uuidOf(authenticator.aaguid),
      transports: transports.length > 0 ? transports : undefined,
      userHandle,
      // Go's zero time (0001-01-01) means "not recorded".
      createdAt: added !== undefined && Number.isFinite(added) && added > 0 ? added : undefined,
    });
  });
}
