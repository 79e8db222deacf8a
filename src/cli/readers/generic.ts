import type { LoginMethod, RecoveryCode, SourceRecord, TotpDevice } from '../bulk-user.js';
import { asObject, type CarryContext, type Extras } from './carry.js';
import { CliError } from '../cli-error.js';
import { assembleRecord, compact, nonEmpty, parseBoolean, type Candidate } from './assemble.js';
import { readStrictTime } from './strict-time.js';
import { CsvProblem, streamCsvRecords } from './csv-records.js';
import { convertAuth0CustomHash, type CustomHashConversion } from '../../hashing/auth0-custom-hash.js';
import { detectFormat } from '../../hashing/formats.js';
import type { FileSource } from './file-source.js';
import { pendingMethod } from './pending-method.js';
import { OverlongLine } from './record-limits.js';

/** The documented columns (CSV header names) or fields (NDJSON keys) of the generic format. */
export const GENERIC_FIELDS = [
  'email',
  'passwordHash',
  'hashingAlgorithm',
  'phoneNumber',
  'thirdPartyId',
  'thirdPartyUserId',
  'externalUserId',
  'timeJoined',
  'emailVerified',
  // NDJSON only: an object as Auth0's bulk import takes it, converted when no passwordHash is given.
  'customPasswordHash',
] as const;

/**
 * NDJSON only: what a SuperTokens export or a script over django-otp's tables writes in bulk import's own shape
 * (contract M-5.7, M-7): metadata as is, roles (names, or `{role}` objects) through the mapping, TOTP devices with
 * their `secretEncoding`, recovery codes.
 */
export const GENERIC_NDJSON_FIELDS = ['userMetadata', 'userRoles', 'totpDevices', 'recoveryCodes'] as const;

type GenericRow = Partial<Record<(typeof GENERIC_FIELDS)[number] | (typeof GENERIC_NDJSON_FIELDS)[number], unknown>>;

type Column = (typeof GENERIC_FIELDS)[number];

// Spreadsheet exports (Auth0's CSV among them) put a ' before a value that starts with one of these, so that
// the spreadsheet does not read it as a formula; the ' is not part of the value.
const FORMULA_GUARD = /^'(?=[=+\-@\t\r])/;

export async function* readGenericCsv(
  source: FileSource,
  warn: (message: string) => void,
  lazySource?: string,
): AsyncGenerator<SourceRecord> {
  let columns: (Column | undefined)[] | undefined;
  let index = 0;
  for await (const cells of streamCsvRecords(source.chunks())) {
    if (cells instanceof CsvProblem) {
      if (!columns) throw new CliError(`${source.path}: the header line cannot be read (${cells.reason})`);
      yield assembleRecord({ index: index++, candidates: [], invalidReason: cells.reason });
      continue;
    }
    if (!columns) {
      columns = cells.map((name) => GENERIC_FIELDS.find((field) => field.toLowerCase() === name.trim().toLowerCase()));
      if (!columns.some((column) => column === 'email' || column === 'phoneNumber' || column === 'thirdPartyUserId')) {
        throw new CliError(`${source.path}: the first line must be a header naming the columns (${GENERIC_FIELDS.join(', ')})`);
      }
      warnUnknown(
        cells.filter((_, i) => columns?.[i] === undefined).map((name) => name.trim()),
        source.path,
        warn,
      );
      continue;
    }
    // A row that does not line up with the header (an unquoted comma in a hash, say) would shift values into
    // other columns, where a salt could pass for a phone number: refuse it without showing its content.
    if (cells.length !== columns.length) {
      yield assembleRecord({
        index: index++,
        candidates: [],
        invalidReason: `has ${cells.length} fields; the header has ${columns.length}`,
      });
      continue;
    }
    const row: GenericRow = {};
    cells.forEach((cell, i) => {
      const column = columns?.[i];
      if (column) row[column] = column === 'email' || column === 'phoneNumber' ? cell.replace(/^'/, '') : cell.replace(FORMULA_GUARD, '');
    });
    yield genericRecord(row, index++, lazySource);
  }
}

export async function* readGenericNdjson(
  source: FileSource,
  warn: (message: string) => void,
  lazySource?: string,
  carry?: CarryContext,
): AsyncGenerator<SourceRecord> {
  let index = 0;
  const unknown = new Set<string>();
  for await (const line of source.lines()) {
    const parsed = parseLine(line);
    if (parsed === undefined) continue;
    if ('reason' in parsed) {
      yield assembleRecord({ index: index++, candidates: [], invalidReason: parsed.reason });
      continue;
    }
    const row = parsed.row;
    const known: readonly string[] = [...GENERIC_FIELDS, ...GENERIC_NDJSON_FIELDS];
    const fresh = Object.keys(row).filter((key) => !known.includes(key) && !unknown.has(key));
    if (fresh.length > 0) {
      fresh.forEach((key) => unknown.add(key));
      warnUnknown(fresh, source.path, warn);
    }
    yield genericRecord(row as GenericRow, index++, lazySource, carry);
  }
}

/** A line of an NDJSON export: its object, why it is not one (the record is reported, the rest still read), or blank. */
export function parseLine(line: string | OverlongLine): { row: Record<string, unknown> } | { reason: string } | undefined {
  if (line instanceof OverlongLine) return { reason: line.reason };
  if (line.trim() === '') return undefined;
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch (error) {
    return { reason: `is not JSON (${error instanceof SyntaxError ? error.message : 'unreadable'})` };
  }
  if (row === null || typeof row !== 'object' || Array.isArray(row)) return { reason: 'is not a JSON object' };
  return { row: row as Record<string, unknown> };
}

function warnUnknown(names: string[], path: string, warn: (message: string) => void): void {
  if (names.length === 0) return;
  warn(
    `warning: ${path}: ignoring unknown field(s) ${names.map((name) => JSON.stringify(name)).join(', ')} (known: ${GENERIC_FIELDS.join(', ')})`,
  );
}

/** With `lazySource`, a row with an email and no hash nor third-party account is a password user to adopt lazily. */
export function genericRecord(row: GenericRow, index: number, lazySource?: string, carry?: CarryContext): SourceRecord {
  const email = nonEmpty(row.email);
  const phoneNumber = nonEmpty(row.phoneNumber);
  const custom = nonEmpty(row.passwordHash) === undefined ? convertCustomHash(row.customPasswordHash) : undefined;
  const passwordHash = nonEmpty(row.passwordHash) ?? (custom && 'hash' in custom ? custom.hash : undefined);
  const thirdPartyId = nonEmpty(row.thirdPartyId);
  const thirdPartyUserId = nonEmpty(row.thirdPartyUserId);
  const time = readStrictTime('timeJoined', row.timeJoined);
  const timeJoined = 'ms' in time ? time.ms : undefined;
  const verified = parseBoolean(row.emailVerified);
  const common = compact({ isVerified: verified, timeJoinedInMSSinceEpoch: timeJoined });
  const candidates: Candidate[] = [];

  if (passwordHash !== undefined || custom !== undefined) {
    const hashingAlgorithm = nonEmpty(row.hashingAlgorithm) ?? (passwordHash === undefined ? undefined : detectAlgorithm(passwordHash));
    const method: LoginMethod = compact({ recipeId: 'emailpassword' as const, email, passwordHash, hashingAlgorithm, ...common });
    const problem =
      custom && 'problem' in custom
        ? custom.problem
        : !email
          ? 'passwordHash without an email'
          : !hashingAlgorithm
            ? 'hashingAlgorithm is missing and the hash is in no format the core detects'
            : undefined;
    candidates.push({ method, problem });
  }
  if (thirdPartyId !== undefined || thirdPartyUserId !== undefined) {
    const method: LoginMethod = compact({ recipeId: 'thirdparty' as const, email, thirdPartyId, thirdPartyUserId, ...common });
    const problem =
      !thirdPartyId || !thirdPartyUserId
        ? 'thirdPartyId and thirdPartyUserId must be given together'
        : !email
          ? 'a third-party user needs an email'
          : undefined;
    candidates.push({ method, problem });
  }
  if (lazySource !== undefined && candidates.length === 0 && email !== undefined) {
    candidates.push({ method: pendingMethod(lazySource, email, common, { legacyUserId: nonEmpty(row.externalUserId) }) });
  }
  // The email belongs to the password or third-party method when there is one; a phone number
  // beside those is a second login method.
  if (phoneNumber !== undefined || (candidates.length === 0 && email !== undefined)) {
    const onlyMethod = candidates.length === 0;
    candidates.push({
      method: compact({ recipeId: 'passwordless' as const, email: onlyMethod ? email : undefined, phoneNumber, ...common }),
    });
  }
  const timeProblem = 'problem' in time ? time.problem : undefined;
  const verifiedProblem =
    nonEmpty(row.emailVerified) !== undefined && verified === undefined
      ? `emailVerified ${String(row.emailVerified)} is not true or false`
      : undefined;
  const extra = ndjsonExtras(row);
  return assembleRecord({
    index,
    externalUserId: nonEmpty(row.externalUserId),
    candidates,
    invalidReason: timeProblem ?? verifiedProblem ?? extra.problem,
    metadata: asObject(row.userMetadata),
    extras: extra.extras,
    carry,
  });
}

/** The bulk-import-shaped fields of an NDJSON row; the core validates devices and codes and names what it refuses. */
function ndjsonExtras(row: GenericRow): { extras?: Extras; problem?: string } {
  if (row.userMetadata !== undefined && asObject(row.userMetadata) === undefined) return { problem: 'userMetadata must be an object' };
  for (const key of ['userRoles', 'totpDevices', 'recoveryCodes'] as const) {
    if (row[key] !== undefined && !Array.isArray(row[key])) return { problem: `${key} must be an array` };
  }
  const roles = ((row.userRoles ?? []) as unknown[]).map((role) => (typeof role === 'string' ? role : asObject(role)?.role));
  if (roles.some((role) => typeof role !== 'string')) return { problem: 'userRoles must hold role names or {"role": …} objects' };
  const devices = (row.totpDevices ?? []) as unknown[];
  if (devices.some((device) => asObject(device) === undefined)) return { problem: 'totpDevices must hold objects' };
  if (row.userRoles === undefined && row.totpDevices === undefined && row.recoveryCodes === undefined) return {};
  return {
    extras: {
      roles: roles as string[],
      totpDevices: devices as TotpDevice[],
      recoveryCodes: (row.recoveryCodes ?? []) as RecoveryCode[],
    },
  };
}

function convertCustomHash(value: unknown): CustomHashConversion | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) return { problem: 'customPasswordHash must be an object' };
  return convertAuth0CustomHash(value as Record<string, unknown>);
}

/** The `hashingAlgorithm` value of the format the core detects from the hash's prefix, as the import route would. */
function detectAlgorithm(hash: string): string | undefined {
  return detectFormat(hash)?.id.toLowerCase();
}
