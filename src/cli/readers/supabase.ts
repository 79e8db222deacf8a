import type { LoginMethod, SourceRecord, TotpDevice } from '../bulk-user.js';
import { CliError } from '../cli-error.js';
import { assembleRecord, compact, nonEmpty, type Candidate } from './assemble.js';
import { asObject, nonEmptyObject, type CarryContext, type FactorId } from './carry.js';
import { CsvProblem, streamCsvRecords } from './csv-records.js';
import { FileSource } from './file-source.js';
import type { ProviderOverrides } from './provider-names.js';
import { carryPasskeys, fromBase64, uuidOf, type FoundPasskey } from './passkeys.js';

export interface SupabaseOptions {
  includeDisabled: boolean;
  providerOverrides: ProviderOverrides;
  /** `auth.identities` and `auth.mfa_factors` rows by user id (`--identities`, `--mfa-factors`). */
  tables?: SupabaseTables;
  carry?: CarryContext;
  /** Now, in milliseconds: a ban that ends after it still holds. */
  now?: number;
}

export interface SupabaseTables {
  identities?: ReadonlyMap<string, Record<string, string>[]>;
  factors?: ReadonlyMap<string, Record<string, string>[]>;
  /** `auth.webauthn_credentials` (passkeys signed in with, newer auth servers), by user id. */
  passkeys?: ReadonlyMap<string, Record<string, string>[]>;
}

/**
 * `auth.users` as `\copy auth.users to 'users.csv' with (format csv, header)` writes it (the Dashboard's table export
 * writes the same CSV): jsonb columns as JSON text, timestamps as `2024-01-15 10:30:00.123456+00`, booleans `t`/`f`.
 */
export async function* readSupabase(source: FileSource, options: SupabaseOptions): AsyncGenerator<SourceRecord> {
  let index = 0;
  for await (const row of tableRows(source, ['id', 'email', 'encrypted_password'])) yield supabaseRecord(row, index++, options);
}

/**
 * The rows of a table's CSV as objects by column name; a row that does not line up with the header has `__fields`,
 * one that cannot be read at all `__problem`.
 */
async function* tableRows(source: FileSource, required: string[]): AsyncGenerator<Record<string, string>> {
  let header: string[] | undefined;
  try {
    for await (const cells of streamCsvRecords(source.chunks())) {
      if (cells instanceof CsvProblem) {
        if (!header) throw new CliError(`${source.path}: the header line cannot be read (${cells.reason})`);
        yield { __problem: cells.reason };
        continue;
      }
      if (!header) {
        header = cells.map((name) => name.trim());
        const missing = required.filter((column) => !header?.includes(column));
        if (missing.length > 0)
          throw new CliError(`${source.path}: the header lacks ${missing.join(', ')} (expected \\copy … with (format csv, header))`);
        continue;
      }
      const row: Record<string, string> = {};
      if (cells.length !== header.length) row.__fields = String(cells.length);
      else header.forEach((name, i) => (row[name] = cells[i]));
      yield row;
    }
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`${source.path}: ${(error as Error).message}`);
  }
}

// Managed by the platform in raw_app_meta_data: how the user signed up, not the app's claims.
const PLATFORM_KEYS = new Set(['provider', 'providers']);

export function supabaseRecord(row: Record<string, string>, index: number, options: SupabaseOptions): SourceRecord {
  if (row.__problem !== undefined) return assembleRecord({ index, candidates: [], invalidReason: row.__problem });
  if (row.__fields !== undefined)
    return assembleRecord({ index, candidates: [], invalidReason: `has ${row.__fields} fields; the header has more or fewer` });
  const id = nonEmpty(row.id);
  const email = nonEmpty(row.email);
  const timeJoined = pgTime(row.created_at);
  const common = (verified: boolean) => compact({ isVerified: verified, timeJoinedInMSSinceEpoch: timeJoined });
  const emailVerified = nonEmpty(row.email_confirmed_at) !== undefined;
  const candidates: Candidate[] = [];
  const notCarried: string[] = [];
  const app = json(row.raw_app_meta_data);
  const user = json(row.raw_user_meta_data);
  if (app === null) notCarried.push('raw_app_meta_data: not a JSON object');
  if (user === null) notCarried.push('raw_user_meta_data: not a JSON object');

  const password = nonEmpty(row.encrypted_password);
  if (password !== undefined) {
    candidates.push({
      method: compact({
        recipeId: 'emailpassword' as const,
        email,
        passwordHash: password,
        hashingAlgorithm: 'bcrypt',
        ...common(emailVerified),
      }),
      problem: email ? undefined : 'password user without an email',
    });
  }
  const identities = id === undefined ? undefined : options.tables?.identities?.get(id);
  for (const identity of identities ?? []) {
    const provider = nonEmpty(identity.provider) ?? 'unknown';
    if (provider === 'email' || provider === 'phone') continue;
    const data = json(identity.identity_data) ?? {};
    const method: LoginMethod = compact({
      recipeId: 'thirdparty' as const,
      email: nonEmpty(identity.email) ?? nonEmpty(data.email) ?? email,
      thirdPartyId: options.providerOverrides.get(provider) ?? provider,
      thirdPartyUserId: nonEmpty(identity.provider_id) ?? nonEmpty(data.sub),
      ...common(emailVerified),
    });
    const problem = provider.startsWith('sso:')
      ? 'SAML single sign-on: the core has no SAML sign-in'
      : !method.thirdPartyUserId
        ? `${provider} identity has no provider_id`
        : !method.email
          ? `${provider} identity has no email (the core needs one for third-party users)`
          : undefined;
    candidates.push({ method, problem });
  }
  if (identities === undefined) {
    const social = (Array.isArray(app?.providers) ? (app.providers as unknown[]) : []).filter((p) => p !== 'email' && p !== 'phone');
    if (social.length > 0) notCarried.push(`sign-in with ${social.join(', ')}: pass --identities (auth.identities) to carry it`);
  }
  // Email users without a password sign in by magic link or code; phone users by SMS code.
  if (password === undefined && email !== undefined)
    candidates.push({ method: compact({ recipeId: 'passwordless' as const, email, ...common(emailVerified) }) });
  const phone = nonEmpty(row.phone);
  if (phone !== undefined) {
    // The column holds digits without the +.
    const phoneNumber = phone.startsWith('+') ? phone : `+${phone}`;
    candidates.push({
      method: compact({ recipeId: 'passwordless' as const, phoneNumber, ...common(nonEmpty(row.phone_confirmed_at) !== undefined) }),
    });
  }

  const factors = factorsOf(id === undefined ? undefined : options.tables?.factors?.get(id));
  notCarried.push(...factors.notCarried);
  const passkeyRows = id === undefined ? [] : (options.tables?.passkeys?.get(id) ?? []);
  const found = [...passkeyRows.map(passkeyOf), ...factors.passkeys].map((passkey) =>
    id === undefined ? passkey : { ...passkey, userHandle: Buffer.from(id, 'utf8') },
  );
  const passkeys = carryPasskeys(found, email, common(emailVerified), options.carry?.passkeys);
  if (passkeys.candidate !== undefined) candidates.push(passkeys.candidate);
  notCarried.push(...passkeys.notCarried);
  if (passkeys.reEnrol) factors.reEnrol.push('webauthn');
  const bannedUntil = pgTime(row.banned_until);
  const banned = bannedUntil !== undefined && !Number.isNaN(bannedUntil) && bannedUntil > (options.now ?? Date.now());
  return assembleRecord({
    index,
    externalUserId: id,
    candidates,
    invalidReason: timeJoined !== undefined && Number.isNaN(timeJoined) ? `created_at ${row.created_at} is not a time` : undefined,
    skipReason: nonEmpty(row.deleted_at)
      ? 'deleted in the source (deleted_at is set)'
      : pgBoolean(row.is_anonymous)
        ? 'anonymous user: nothing to sign in with'
        : banned && !options.includeDisabled
          ? 'banned in the source (pass --include-disabled to import banned users)'
          : undefined,
    metadata: {
      appMetadata: nonEmptyObject(Object.fromEntries(Object.entries(app ?? {}).filter(([key]) => !PLATFORM_KEYS.has(key)))),
      userMetadata: nonEmptyObject(user),
    },
    notCarried,
    extras: { totpDevices: factors.devices, phoneFactors: factors.phones, reEnrol: factors.reEnrol, passkeys },
    carry: options.carry,
  });
}

// Supabase's TOTP is SHA1, 6 digits, 30 s with a base32 secret; with column encryption on the secret is an encrypted
// envelope (JSON) that only the auth server's key opens.
function factorsOf(rows: Record<string, string>[] | undefined) {
  const devices: TotpDevice[] = [];
  const phones: string[] = [];
  const reEnrol: FactorId[] = [];
  const notCarried: string[] = [];
  const passkeys: FoundPasskey[] = [];
  for (const factor of rows ?? []) {
    const type = nonEmpty(factor.factor_type) ?? 'unknown';
    const name = nonEmpty(factor.friendly_name);
    const where = ['mfa_factors', nonEmpty(factor.id), type].filter((part) => part !== undefined).join(' ');
    if (factor.status !== 'verified') {
      notCarried.push(`${where}: never verified, so not carried`);
      continue;
    }
    if (type === 'totp') {
      const secret = nonEmpty(factor.secret);
      if (secret === undefined || secret.startsWith('{')) {
        reEnrol.push('totp');
        notCarried.push(
          `${where}: the secret is ${secret === undefined ? 'missing' : 'encrypted (decrypt it with the auth server key first)'}; marked to re-enrol`,
        );
        continue;
      }
      const deviceName = name !== undefined && !devices.some((device) => device.deviceName === name) ? name : undefined;
      devices.push(
        compact({ secretKey: secret, secretEncoding: 'base32' as const, algorithm: 'SHA1' as const, digits: 6, period: 30, deviceName }),
      );
    } else if (type === 'phone' && nonEmpty(factor.phone) !== undefined) {
      const phone = factor.phone.trim();
      phones.push(phone.startsWith('+') ? phone : `+${phone}`);
    } else if (type === 'webauthn') {
      passkeys.push(factorPasskey(factor, where));
    } else {
      notCarried.push(`${where}: the core has no such factor`);
    }
  }
  return { devices, phones, reEnrol, notCarried, passkeys };
}

/**
 * A WebAuthn second factor: `web_authn_credential` is go-webauthn's Credential as JSON (`id` and `publicKey` standard
 * base64, the key a COSE key; `transport`; `authenticator.AAGUID` base64, `authenticator.signCount`). The user handle
 * is the UTF-8 of the user's UUID (set by the caller); the RP ID is the auth server's WebAuthn RP ID, given by --rp-id.
 */
function factorPasskey(factor: Record<string, string>, where: string): FoundPasskey {
  const credential = json(factor.web_authn_credential);
  if (credential === undefined) return { where, secondFactor: true, problem: 'no web_authn_credential (pass the column in --mfa-factors)' };
  if (credential === null) return { where, secondFactor: true, problem: 'web_authn_credential is not a JSON object' };
  const authenticator = asObject(credential.authenticator) ?? {};
  const transports = Array.isArray(credential.transport) ? credential.transport.filter((t): t is string => typeof t === 'string') : [];
  const counter = authenticator.signCount;
  return compact({
    where,
    secondFactor: true,
    credentialId: nonEmpty(credential.id),
    publicKey: nonEmpty(credential.publicKey),
    counter: typeof counter === 'number' && Number.isSafeInteger(counter) ? counter : undefined,
    aaguid: uuidOf(factor.web_authn_aaguid) ?? uuidOf(authenticator.AAGUID),
    transports: transports.length > 0 ? transports : undefined,
    createdAt: finite(pgTime(factor.created_at)),
  });
}

/**
 * A row of `auth.webauthn_credentials` (passkeys, a first factor): `credential_id` and `public_key` are bytea, which
 * \copy writes as `\x` and hex (or base64 text, when exported with encode(…, 'base64')); the key is a COSE key.
 */
function passkeyOf(row: Record<string, string>): FoundPasskey {
  const where = ['webauthn_credentials', nonEmpty(row.id)].filter((part) => part !== undefined).join(' ');
  let transports: string[] = [];
  try {
    const parsed: unknown = JSON.parse(nonEmpty(row.transports) ?? '[]');
    if (Array.isArray(parsed)) transports = parsed.filter((t): t is string => typeof t === 'string');
  } catch {
    // An unreadable transports cell only loses the hint.
  }
  const counter = Number(row.sign_count);
  return compact({
    where,
    secondFactor: false,
    credentialId: byteaText(row.credential_id),
    publicKey: byteaText(row.public_key),
    counter: nonEmpty(row.sign_count) !== undefined && Number.isSafeInteger(counter) ? counter : undefined,
    aaguid: uuidOf(row.aaguid),
    transports: transports.length > 0 ? transports : undefined,
    createdAt: finite(pgTime(row.created_at)),
  });
}

/** A bytea cell as base64url: `\x`-hex as \copy writes it, or base64 text as it is. */
function byteaText(text: string | undefined): string | undefined {
  const value = nonEmpty(text);
  if (value === undefined) return undefined;
  if (/^\\x([0-9a-f]{2})+$/i.test(value)) return Buffer.from(value.slice(2), 'hex').toString('base64url');
  return fromBase64(value)?.toString('base64url') ?? value;
}

function finite(time: number | undefined): number | undefined {
  return time !== undefined && Number.isFinite(time) ? time : undefined;
}

/** Loads `auth.identities` and `auth.mfa_factors` CSVs, grouped by user_id. */
export async function loadSupabaseTables(
  identitiesPath: string | undefined,
  factorsPath: string | undefined,
  passkeysPath?: string,
): Promise<SupabaseTables> {
  const load = async (path: string, required: string[], keep: string[]) => {
    let source: FileSource;
    try {
      source = new FileSource(path);
    } catch {
      throw new CliError(`cannot read ${path}`);
    }
    const byUser = new Map<string, Record<string, string>[]>();
    for await (const row of tableRows(source, required)) {
      if (row.__problem !== undefined) throw new CliError(`${path}: a row cannot be read (${row.__problem})`);
      if (row.__fields !== undefined) throw new CliError(`${path}: a row has ${row.__fields} fields, not as many as the header`);
      const kept = Object.fromEntries(keep.filter((key) => row[key] !== undefined).map((key) => [key, row[key]]));
      const list = byUser.get(row.user_id) ?? [];
      list.push(kept);
      byUser.set(row.user_id, list);
    }
    return byUser;
  };
  return {
    ...(identitiesPath !== undefined && {
      identities: await load(
        identitiesPath,
        ['user_id', 'provider', 'identity_data'],
        ['provider', 'provider_id', 'identity_data', 'email'],
      ),
    }),
    ...(factorsPath !== undefined && {
      factors: await load(
        factorsPath,
        ['user_id', 'factor_type', 'status'],
        ['id', 'friendly_name', 'factor_type', 'status', 'secret', 'phone', 'web_authn_credential', 'web_authn_aaguid', 'created_at'],
      ),
    }),
    ...(passkeysPath !== undefined && {
      passkeys: await load(
        passkeysPath,
        ['user_id', 'credential_id', 'public_key'],
        ['id', 'credential_id', 'public_key', 'sign_count', 'aaguid', 'transports', 'created_at'],
      ),
    }),
  };
}

/** A PostgreSQL timestamptz as text (`2024-01-15 10:30:00.123456+00`) or ISO 8601, in milliseconds; NaN when unreadable. */
export function pgTime(text: string | undefined): number | undefined {
  const value = nonEmpty(text);
  if (value === undefined) return undefined;
  const match = /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d(?::?\d\d)?)?$/.exec(value);
  if (!match) return Number.NaN;
  const fraction = (match[3] ?? '').slice(0, 4);
  let zone = match[4] ?? 'Z';
  if (zone !== 'Z') zone = zone.length === 3 ? `${zone}:00` : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  return Date.parse(`${match[1]}T${match[2]}${fraction}${zone}`);
}

function pgBoolean(text: string | undefined): boolean {
  return text === 't' || text === 'true';
}

/** A jsonb cell: undefined when empty, null when it is not a JSON object. */
function json(text: string | undefined): Record<string, unknown> | undefined | null {
  const value = nonEmpty(text);
  if (value === undefined) return undefined;
  try {
    return asObject(JSON.parse(value)) ?? null;
  } catch {
    return null;
  }
}
