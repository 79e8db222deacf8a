import type { LoginMethod, RecoveryCode, SourceRecord, TotpDevice } from '../bulk-user.js';
import { CliError } from '../cli-error.js';
import { assembleRecord, compact, nonEmpty, parseBoolean, parseTime, type Candidate } from './assemble.js';
import { asObject, type CarryContext, type FactorId } from './carry.js';
import type { FileSource } from './file-source.js';
import { JsonStreamError, streamJsonArray } from './json-array-stream.js';
import type { ProviderOverrides } from './provider-names.js';
import { carryPasskeys, uuidOf, type FoundPasskey } from './passkeys.js';

export interface KeycloakOptions {
  includeDisabled: boolean;
  providerOverrides: ProviderOverrides;
  carry?: CarryContext;
}

/**
 * A realm export (`kc.sh export --realm <r> --file realm.json`), or a realm file followed by the
 * `<realm>-users-<n>.json` files that `kc.sh export --dir` writes beside it: the `users` array of each. Each user's
 * `credentials` carry the password hash, OTP devices and recovery codes; `realmRoles`, `clientRoles` and `groups`
 * its roles. Where users files follow, the realm file may hold no users.
 */
export async function* readKeycloak(sources: FileSource[], options: KeycloakOptions): AsyncGenerator<SourceRecord> {
  let index = 0;
  for (const [position, source] of sources.entries()) {
    try {
      for await (const user of streamJsonArray(source.chunks(), 'users')) yield keycloakRecord(asObject(user) ?? {}, index++, options);
    } catch (error) {
      const noUsers = error instanceof JsonStreamError && error.message.startsWith('no "users" array');
      if (noUsers && position === 0 && sources.length > 1) continue;
      if (error instanceof JsonStreamError || error instanceof SyntaxError)
        throw new CliError(`${source.path}: ${error.message} (expected a realm export: {"realm": …, "users": [...]})`);
      throw error;
    }
  }
}

// Roles every user of a realm holds by default: not the app's roles, so left out unless the mapping names them.
const DEFAULT_REALM_ROLES = new Set(['offline_access', 'uma_authorization']);
const DEFAULT_CLIENT_ROLES = new Set(['account/manage-account', 'account/view-profile', 'account/manage-account-links']);

const OTP_ALGORITHMS: Record<string, TotpDevice['algorithm']> = { HmacSHA1: 'SHA1', HmacSHA256: 'SHA256', HmacSHA512: 'SHA512' };

export function keycloakRecord(user: Record<string, unknown>, index: number, options: KeycloakOptions): SourceRecord {
  const email = nonEmpty(user.email);
  const timeJoined = parseTime(user.createdTimestamp);
  const common = compact({ isVerified: parseBoolean(user.emailVerified) ?? false, timeJoinedInMSSinceEpoch: timeJoined });
  const notCarried: string[] = [];
  const devices: TotpDevice[] = [];
  const recoveryCodes: RecoveryCode[] = [];
  const reEnrol: FactorId[] = [];
  const candidates: Candidate[] = [];
  const passkeys: FoundPasskey[] = [];

  const credentials = Array.isArray(user.credentials) ? (user.credentials as unknown[]).map((c) => asObject(c) ?? {}) : [];
  credentials.forEach((credential, position) => {
    const type = nonEmpty(credential.type) ?? 'unknown';
    const where = `credentials[${position}] ${type}`;
    if (type === 'password') {
      const method: LoginMethod = compact({ recipeId: 'emailpassword' as const, email, ...common });
      const hash = passwordHash(credential);
      if ('problem' in hash) candidates.push({ method, problem: hash.problem });
      else candidates.push({ method: { ...method, ...hash }, problem: email ? undefined : 'password user without an email' });
    } else if (type === 'otp') {
      const device = otpDevice(credential, devices);
      if ('problem' in device) {
        reEnrol.push('totp');
        notCarried.push(`${where}: ${device.problem}; marked to re-enrol`);
      } else devices.push(device);
    } else if (type === 'recovery-authn-codes') {
      const codes = recoveryCodesOf(credential);
      if ('problem' in codes) notCarried.push(`${where}: ${codes.problem}`);
      else recoveryCodes.push(...codes);
    } else if (type === 'webauthn' || type === 'webauthn-passwordless') {
      passkeys.push(passkeyOf(credential, where, type === 'webauthn', nonEmpty(user.id)));
    } else {
      notCarried.push(`${where}: the core has no such credential`);
    }
  });

  const identities = Array.isArray(user.federatedIdentities) ? (user.federatedIdentities as unknown[]).map((i) => asObject(i) ?? {}) : [];
  for (const identity of identities) {
    const alias = nonEmpty(identity.identityProvider) ?? 'unknown';
    const method: LoginMethod = compact({
      recipeId: 'thirdparty' as const,
      email,
      thirdPartyId: options.providerOverrides.get(alias) ?? alias,
      thirdPartyUserId: nonEmpty(identity.userId),
      ...common,
    });
    const problem = !method.thirdPartyUserId
      ? `${alias} identity has no userId`
      : !email
        ? `${alias} identity: the user has no email (the core needs one for third-party users)`
        : undefined;
    candidates.push({ method, problem });
  }

  // After the password and identity providers: a passkey is the primary login method only of a passkey-only user.
  const carried = carryPasskeys(passkeys, email, common, options.carry?.passkeys);
  if (carried.candidate !== undefined) candidates.push(carried.candidate);
  notCarried.push(...carried.notCarried);
  if (carried.reEnrol) reEnrol.push('webauthn');

  const requiredActions = Array.isArray(user.requiredActions) ? (user.requiredActions as unknown[]).map(String) : [];
  if (requiredActions.includes('CONFIGURE_TOTP') && devices.length === 0) {
    reEnrol.push('totp');
    notCarried.push('requiredActions CONFIGURE_TOTP: the user was to set up TOTP; marked to enrol');
  }
  for (const action of requiredActions.filter((name) => name !== 'CONFIGURE_TOTP')) {
    notCarried.push(`requiredActions ${action}: the core has no required actions`);
  }

  const serviceAccount = nonEmpty(user.serviceAccountClientLink);
  return assembleRecord({
    index,
    externalUserId: nonEmpty(user.id),
    candidates,
    invalidReason:
      timeJoined !== undefined && Number.isNaN(timeJoined) ? `createdTimestamp ${String(user.createdTimestamp)} is not a time` : undefined,
    skipReason:
      serviceAccount !== undefined
        ? `service account of client ${serviceAccount}: not a person`
        : parseBoolean(user.enabled) === false && !options.includeDisabled
          ? 'disabled in the source (pass --include-disabled to import disabled users)'
          : candidates.length === 0
            ? 'no password credential, identity provider or passkey: nothing to sign in with'
            : undefined,
    metadata: {
      username: nonEmpty(user.username),
      firstName: nonEmpty(user.firstName),
      lastName: nonEmpty(user.lastName),
      ...attributesOf(user.attributes, options),
    },
    notCarried,
    extras: { roles: rolesOf(user, options), totpDevices: devices, recoveryCodes, reEnrol, passkeys: carried },
    carry: options.carry,
  });
}

/**
 * A `webauthn` (second factor) or `webauthn-passwordless` credential: `credentialData` holds `credentialId` (standard
 * base64 of the raw id), `credentialPublicKey` (the COSE key, base64url), `counter`, `aaguid` and `transports`.
 * Keycloak registers passkeys with the UTF-8 bytes of the user's id as the user handle; the RP ID is the realm's
 * WebAuthn policy's (`webAuthnPolicyRpId` / `webAuthnPolicyPasswordlessRpId`, empty: the server's host), given by --rp-id.
 */
function passkeyOf(credential: Record<string, unknown>, where: string, secondFactor: boolean, userId: string | undefined): FoundPasskey {
  const parts = credentialParts(credential);
  if (parts === undefined) return { where, secondFactor, problem: 'credentialData is not JSON' };
  const { data } = parts;
  const transports = Array.isArray(data.transports) ? stringsOf(data.transports) : stringsOf(nonEmpty(data.transports)?.split(','));
  return compact({
    where,
    secondFactor,
    credentialId: nonEmpty(data.credentialId),
    publicKey: nonEmpty(data.credentialPublicKey),
    counter: typeof data.counter === 'number' && Number.isSafeInteger(data.counter) ? data.counter : undefined,
    aaguid: uuidOf(data.aaguid),
    transports: transports.length > 0 ? transports : undefined,
    userHandle: userId === undefined ? undefined : Buffer.from(userId, 'utf8'),
    createdAt: finiteTime(credential.createdDate),
  });
}

function finiteTime(value: unknown): number | undefined {
  const time = parseTime(value);
  return time !== undefined && Number.isFinite(time) ? time : undefined;
}

/** Realm roles as named, client roles as `<client>/<role>`, groups as their paths (`/staff/editors`). */
function rolesOf(user: Record<string, unknown>, options: KeycloakOptions): string[] {
  const mapped = (name: string) => options.carry?.mapping?.map.has(name) ?? false;
  const names: string[] = [];
  for (const role of stringsOf(user.realmRoles)) {
    if ((DEFAULT_REALM_ROLES.has(role) || role.startsWith('default-roles-')) && !mapped(role)) continue;
    names.push(role);
  }
  for (const [client, roles] of Object.entries(asObject(user.clientRoles) ?? {})) {
    for (const role of stringsOf(roles)) {
      const name = `${client}/${role}`;
      if (DEFAULT_CLIENT_ROLES.has(name) && !mapped(name)) continue;
      names.push(name);
    }
  }
  names.push(...stringsOf(user.groups));
  return names;
}

// Attributes are lists of strings, kept as lists: admin-set unless the mapping lists them as user-editable.
function attributesOf(value: unknown, options: KeycloakOptions) {
  const trusted: Record<string, unknown> = {};
  const editable: Record<string, unknown> = {};
  for (const [name, values] of Object.entries(asObject(value) ?? {})) {
    (options.carry?.mapping?.userEditableClaims.has(name) ? editable : trusted)[name] = values;
  }
  return {
    appMetadata: Object.keys(trusted).length > 0 ? trusted : undefined,
    userMetadata: Object.keys(editable).length > 0 ? editable : undefined,
  };
}

/** `secretData` and `credentialData` are JSON written into strings; older exports put the fields on the credential. */
function credentialParts(
  credential: Record<string, unknown>,
): { secret: Record<string, unknown>; data: Record<string, unknown> } | undefined {
  try {
    const secret = typeof credential.secretData === 'string' ? asObject(JSON.parse(credential.secretData)) : {};
    const data = typeof credential.credentialData === 'string' ? asObject(JSON.parse(credential.credentialData)) : {};
    if (secret === undefined || data === undefined) return undefined;
    return { secret, data };
  } catch {
    return undefined;
  }
}

function passwordHash(credential: Record<string, unknown>): { passwordHash: string; hashingAlgorithm: string } | { problem: string } {
  const parts = credentialParts(credential);
  if (parts === undefined) return { problem: 'password credential: secretData or credentialData is not JSON' };
  const value = nonEmpty(parts.secret.value ?? credential.hashedSaltedValue);
  const salt = nonEmpty(parts.secret.salt ?? credential.salt);
  const algorithm = nonEmpty(parts.data.algorithm ?? credential.algorithm) ?? 'pbkdf2-sha256';
  const iterations = Number(parts.data.hashIterations ?? credential.hashIterations);
  if (value === undefined || salt === undefined) return { problem: 'password credential without a value or salt' };
  const digest = { pbkdf2: 'sha1', 'pbkdf2-sha256': 'sha256', 'pbkdf2-sha512': 'sha512' }[algorithm];
  if (digest !== undefined) {
    const length = Buffer.from(value, 'base64').length;
    return { passwordHash: `$pbkdf2-${digest}$i=${iterations},l=${length}$${salt}$${value}`, hashingAlgorithm: 'pbkdf2' };
  }
  if (algorithm === 'argon2') {
    const extra = asObject(parts.data.additionalParameters) ?? {};
    const first = (key: string) => stringsOf(extra[key])[0];
    const type = first('type') ?? 'id';
    const version = first('version') === '1.0' ? 16 : 19;
    const unpadded = (text: string) => text.replace(/=+$/, '');
    return {
      passwordHash: `$argon2${type}$v=${version}$m=${first('memory') ?? 7168},t=${iterations},p=${first('parallelism') ?? 1}$${unpadded(salt)}$${unpadded(value)}`,
      hashingAlgorithm: 'argon2',
    };
  }
  return { problem: `password hash algorithm ${algorithm} is not one the core verifies (pbkdf2, pbkdf2-sha256, pbkdf2-sha512, argon2)` };
}

// Without `secretEncoding: "BASE32"` Keycloak keys HMAC with the UTF-8 bytes of the secret as written (raw).
function otpDevice(credential: Record<string, unknown>, earlier: TotpDevice[]): TotpDevice | { problem: string } {
  const parts = credentialParts(credential);
  if (parts === undefined) return { problem: 'secretData or credentialData is not JSON' };
  const subType = nonEmpty(parts.data.subType) ?? 'totp';
  if (subType !== 'totp') return { problem: `${subType} devices cannot be carried (the core verifies TOTP only)` };
  const secretKey = typeof parts.secret.value === 'string' ? parts.secret.value : undefined;
  if (secretKey === undefined || secretKey === '') return { problem: 'no secret value' };
  const algorithmName = nonEmpty(parts.data.algorithm) ?? 'HmacSHA1';
  const algorithm = OTP_ALGORITHMS[algorithmName];
  if (algorithm === undefined) return { problem: `algorithm ${algorithmName} is not HmacSHA1, HmacSHA256 or HmacSHA512` };
  const label = nonEmpty(credential.userLabel);
  // Two devices of one user may share a label at Keycloak; the core needs distinct names, so later twins are numbered.
  let deviceName = label;
  for (let n = 2; deviceName !== undefined && earlier.some((device) => device.deviceName === deviceName); n++)
    deviceName = `${label} (${n})`;
  return compact({
    secretKey,
    secretEncoding: nonEmpty(parts.data.secretEncoding)?.toUpperCase() === 'BASE32' ? ('base32' as const) : ('raw' as const),
    algorithm,
    digits: numberOr(parts.data.digits, 6),
    period: numberOr(parts.data.period, 30),
    deviceName,
  });
}

// Each code is kept as the base64 SHA-512 digest of its text (`RS512` in older versions names the same digest).
function recoveryCodesOf(credential: Record<string, unknown>): RecoveryCode[] | { problem: string } {
  const parts = credentialParts(credential);
  if (parts === undefined) return { problem: 'secretData or credentialData is not JSON' };
  const algorithm = nonEmpty(parts.data.algorithm) ?? 'SHA-512';
  if (!['SHA-512', 'RS512', 'SHA512'].includes(algorithm)) return { problem: `codes hashed with ${algorithm}, not SHA-512` };
  const codes = Array.isArray(parts.secret.codes) ? (parts.secret.codes as unknown[]) : [];
  const hashes = codes.map((code) => nonEmpty(asObject(code)?.encodedHashedValue)).filter((hash): hash is string => hash !== undefined);
  if (hashes.length === 0) return { problem: 'no codes left' };
  return hashes.map((hash) => ({ hash, hashingAlgorithm: 'sha512' as const }));
}

function numberOr(value: unknown, fallback: number): number {
  const number = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(number) && value !== undefined && value !== null && value !== '' ? number : fallback;
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string' && item.trim() !== '') : [];
}
