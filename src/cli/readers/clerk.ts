import { detectFormat } from '../../hashing/formats.js';
import type { LoginMethod, RecoveryCode, SourceRecord, TotpDevice } from '../bulk-user.js';
import { CliError } from '../cli-error.js';
import { assembleRecord, compact, nonEmpty, parseTime, type Candidate } from './assemble.js';
import { asObject, nonEmptyObject, type CarryContext, type FactorId } from './carry.js';
import { CsvProblem, streamCsvRecords } from './csv-records.js';
import { FileSource } from './file-source.js';
import { JsonStreamError, streamJsonArray } from './json-array-stream.js';
import type { ProviderOverrides } from './provider-names.js';

export interface ClerkOptions {
  includeDisabled: boolean;
  providerOverrides: ProviderOverrides;
  /** The Backend API's users (`--clerk-api`), by id: metadata, social accounts, second-factor state. */
  api?: ClerkApiUsers;
  carry?: CarryContext;
}

/** The columns of the Dashboard's "Export users" CSV; multi-valued cells separate their values with `|`. */
const COLUMNS = [
  'id',
  'first_name',
  'last_name',
  'username',
  'primary_email_address',
  'primary_phone_number',
  'verified_email_addresses',
  'unverified_email_addresses',
  'verified_phone_numbers',
  'unverified_phone_numbers',
  'totp_secret',
  'password_digest',
  'password_hasher',
] as const;
type Column = (typeof COLUMNS)[number];
type Row = Partial<Record<Column, string>>;

/**
 * The Dashboard CSV (the only export with password digests and TOTP secrets), joined by user id with the Backend
 * API's `GET /v1/users` pages (`--clerk-api`, one JSON array: the only export with metadata and social accounts).
 */
export async function* readClerk(source: FileSource, options: ClerkOptions): AsyncGenerator<SourceRecord> {
  let columns: (Column | undefined)[] | undefined;
  let index = 0;
  for await (const cells of streamCsvRecords(source.chunks())) {
    if (cells instanceof CsvProblem) {
      if (!columns) throw new CliError(`${source.path}: the header line cannot be read (${cells.reason})`);
      yield assembleRecord({ index: index++, candidates: [], invalidReason: cells.reason });
      continue;
    }
    // The sample exports start with a comment line; the Dashboard's do not.
    if (!columns && cells[0]?.startsWith('#')) continue;
    if (!columns) {
      columns = cells.map((name) => COLUMNS.find((column) => column === name.trim()));
      if (!columns.includes('id') || !columns.includes('primary_email_address')) {
        throw new CliError(`${source.path}: not the Dashboard's user export (its header names id, primary_email_address, …)`);
      }
      continue;
    }
    if (cells.length !== columns.length) {
      yield assembleRecord({
        index: index++,
        candidates: [],
        invalidReason: `has ${cells.length} fields; the header has ${columns.length}`,
      });
      continue;
    }
    const row: Row = {};
    cells.forEach((cell, i) => {
      const column = columns?.[i];
      if (column) row[column] = cell;
    });
    yield clerkRecord(row, index++, options);
  }
}

export function clerkRecord(row: Row, index: number, options: ClerkOptions): SourceRecord {
  const id = nonEmpty(row.id);
  const api = id === undefined ? undefined : options.api?.get(id);
  const verifiedEmails = split(row.verified_email_addresses);
  const verifiedPhones = split(row.verified_phone_numbers);
  const email = nonEmpty(row.primary_email_address);
  const timeJoined = parseTime(api?.created_at);
  const common = (contact: string | undefined, verified: string[]) =>
    compact({ isVerified: contact !== undefined && verified.includes(contact), timeJoinedInMSSinceEpoch: timeJoined });
  const candidates: Candidate[] = [];
  const notCarried: string[] = [];

  const digest = nonEmpty(row.password_digest);
  if (digest !== undefined) {
    const hashingAlgorithm = hasherOf(nonEmpty(row.password_hasher), digest);
    const method: LoginMethod = compact({
      recipeId: 'emailpassword' as const,
      email,
      passwordHash: digest,
      hashingAlgorithm,
      ...common(email, verifiedEmails),
    });
    candidates.push({
      method,
      problem: !email
        ? 'password user without a primary email'
        : hashingAlgorithm === undefined
          ? `password_hasher ${row.password_hasher ?? ''} is not one the core verifies`
          : undefined,
    });
  }
  for (const account of api === undefined ? [] : arrayOf(api.external_accounts)) {
    const provider = (nonEmpty(account.provider) ?? 'unknown').replace(/^oauth_/, '');
    const method: LoginMethod = compact({
      recipeId: 'thirdparty' as const,
      email: nonEmpty(account.email_address) ?? email,
      thirdPartyId: options.providerOverrides.get(provider) ?? provider,
      thirdPartyUserId: nonEmpty(account.provider_user_id),
      ...common(email, verifiedEmails),
    });
    candidates.push({
      method,
      problem: !method.thirdPartyUserId
        ? `${provider} account has no provider_user_id`
        : !method.email
          ? `${provider} account has no email`
          : undefined,
    });
  }
  // Without a password a Clerk user signs in by a code or link sent to the primary email.
  if (digest === undefined && email !== undefined) {
    candidates.push({ method: compact({ recipeId: 'passwordless' as const, email, ...common(email, verifiedEmails) }) });
  }
  const secondFactorPhones = new Set(
    arrayOf(api?.phone_numbers)
      .filter((phone) => phone.reserved_for_second_factor === true)
      .map((phone) => nonEmpty(phone.phone_number))
      .filter((phone): phone is string => phone !== undefined),
  );
  const phone = nonEmpty(row.primary_phone_number);
  if (phone !== undefined && !secondFactorPhones.has(phone)) {
    candidates.push({ method: compact({ recipeId: 'passwordless' as const, phoneNumber: phone, ...common(phone, verifiedPhones) }) });
  }
  const otherEmails = verifiedEmails.filter((address) => address !== email);
  if (otherEmails.length > 0)
    notCarried.push(`verified_email_addresses: ${otherEmails.length} other address(es): a user here signs in by one email`);

  const factors = secondFactors(row, api, [...secondFactorPhones]);
  notCarried.push(...factors.notCarried);
  if (api === undefined && options.api !== undefined)
    notCarried.push('not in the --clerk-api export: metadata and social accounts not carried');

  return assembleRecord({
    index,
    externalUserId: id,
    candidates,
    invalidReason: timeJoined !== undefined && Number.isNaN(timeJoined) ? `created_at ${String(api?.created_at)} is not a time` : undefined,
    skipReason:
      (api?.banned === true || api?.locked === true) && !options.includeDisabled
        ? `${api.banned === true ? 'banned' : 'locked'} in the source (pass --include-disabled to import them)`
        : undefined,
    metadata: {
      firstName: nonEmpty(row.first_name),
      lastName: nonEmpty(row.last_name),
      username: nonEmpty(row.username),
      imageUrl: nonEmpty(api?.image_url),
      // Public and private metadata are written by the app's backend only; unsafe metadata by the user.
      appMetadata: nonEmptyObject(api?.public_metadata),
      privateMetadata: nonEmptyObject(api?.private_metadata),
      userMetadata: nonEmptyObject(api?.unsafe_metadata),
    },
    notCarried,
    extras: {
      totpDevices: factors.devices,
      recoveryCodes: factors.codes,
      phoneFactors: factors.phones,
      reEnrol: factors.reEnrol,
    },
    carry: options.carry,
  });
}

// Clerk's TOTP is SHA1, 6 digits, 30 s, base32. Backup codes are in no export; a file that has them (plain or bcrypt,
// as Clerk's own import takes them) under `backup_codes` is carried.
function secondFactors(row: Row, api: Record<string, unknown> | undefined, phones: string[]) {
  const devices: TotpDevice[] = [];
  const codes: RecoveryCode[] = [];
  const reEnrol: FactorId[] = [];
  const notCarried: string[] = [];
  const secret = nonEmpty(row.totp_secret);
  if (secret !== undefined) devices.push({ secretKey: secret, secretEncoding: 'base32', algorithm: 'SHA1', digits: 6, period: 30 });
  else if (api?.totp_enabled === true) {
    reEnrol.push('totp');
    notCarried.push('totp_enabled: the CSV has no totp_secret for this user; marked to re-enrol');
  }
  const backup = Array.isArray(api?.backup_codes)
    ? (api.backup_codes as unknown[]).filter((code): code is string => typeof code === 'string' && code !== '')
    : [];
  for (const code of backup) codes.push(code.startsWith('$2') ? { hash: code, hashingAlgorithm: 'bcrypt' } : code);
  if (backup.length === 0 && api?.backup_code_enabled === true) {
    notCarried.push('backup codes: Clerk exports none; the user must generate new ones');
  }
  return { devices, codes, reEnrol, phones, notCarried };
}

function hasherOf(hasher: string | undefined, digest: string): string | undefined {
  if (hasher === 'bcrypt') return 'bcrypt';
  if (hasher?.startsWith('argon2')) return 'argon2';
  return detectFormat(digest)?.id.toLowerCase();
}

function split(cell: string | undefined): string[] {
  return (cell ?? '')
    .split('|')
    .map((value) => value.trim())
    .filter((value) => value !== '');
}

function arrayOf(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.map((item) => asObject(item)).filter((item) => item !== undefined) : [];
}

/** The Backend API's users by id, with what the reader uses of them. */
export type ClerkApiUsers = ReadonlyMap<string, Record<string, unknown>>;

const API_KEYS = [
  'id',
  'created_at',
  'banned',
  'locked',
  'image_url',
  'public_metadata',
  'private_metadata',
  'unsafe_metadata',
  'external_accounts',
  'phone_numbers',
  'totp_enabled',
  'backup_code_enabled',
  'backup_codes',
  'organization_memberships',
];

/** Reads `GET /v1/users` pages saved as one JSON array (or `{"data": [...]}`); keeps only the fields used. */
export async function loadClerkApi(path: string): Promise<ClerkApiUsers> {
  let source: FileSource;
  try {
    source = new FileSource(path);
  } catch {
    throw new CliError(`cannot read ${path}`);
  }
  const users = new Map<string, Record<string, unknown>>();
  try {
    for await (const item of streamJsonArray(source.chunks(), 'data')) {
      const user = asObject(item);
      const id = nonEmpty(user?.id);
      if (user === undefined || id === undefined) continue;
      users.set(id, Object.fromEntries(API_KEYS.filter((key) => user[key] !== undefined).map((key) => [key, user[key]])));
    }
  } catch (error) {
    if (error instanceof JsonStreamError || error instanceof SyntaxError)
      throw new CliError(`${path}: ${error.message} (expected the Backend API's users: a JSON array)`);
    throw error;
  }
  return users;
}
