import { methodKeys } from '../account-keys.js';
import {
  summariseMethod,
  type BulkImportUser,
  type Candidate,
  type LoginMethod,
  type MethodSummary,
  type SourceRecord,
} from '../bulk-user.js';
import { unstorableText } from '../../bulk-import/validate/storable-text.js';
import { checkEmail, checkPhoneNumber } from '../contact-rules.js';
import { applyExtras, phoneFactorMethods, type CarryContext, type Extras } from './carry.js';

/** A login method found in the export; `problem` says why it cannot be imported. */
export type { Candidate } from '../bulk-user.js';

export interface RecordParts {
  index: number;
  externalUserId?: string;
  /** Candidates in preference order: the first usable one is imported. */
  candidates: Candidate[];
  /** Set for users the source marks as disabled or blocked. */
  skipReason?: string;
  /** Set when the record as a whole cannot be read (a bad date, say). */
  invalidReason?: string;
  /** Carried into the user's metadata; empty values are left out. */
  metadata?: Record<string, unknown>;
  /** Fields of the export that are not imported, each as `<field>: <why>`, for the report. */
  notCarried?: string[];
  /** Roles, second factors and marks found beyond login methods (carry.ts). */
  extras?: Extras;
  carry?: CarryContext;
}

// Every usable login method of a person is imported, as one user: the first (the readers list password first, the
// method users most often sign in with) is its primary login method and the core links the others to it. A method
// that cannot be imported (no email, a refused phone number, the same account as an earlier method) is reported.
export function assembleRecord(parts: RecordParts): SourceRecord {
  const { index, externalUserId } = parts;
  // A phone second factor is a login method of its own, linked to the user, but never the one it is primary by.
  const factorMethods =
    (parts.extras?.phoneFactors?.length ?? 0) === 0
      ? []
      : phoneFactorMethods(parts.extras, compact({ timeJoinedInMSSinceEpoch: parts.candidates[0]?.method.timeJoinedInMSSinceEpoch }));
  const candidates: Candidate[] = [];
  for (const candidate of parts.candidates) candidates.push(applyContactRules(candidate));
  for (const method of factorMethods) candidates.push(applyContactRules({ method }));
  const firstMethod = candidates[0]?.method;
  const key = externalUserId ?? firstMethod?.email ?? firstMethod?.phoneNumber ?? `record ${index + 1}`;
  const usable: LoginMethod[] = [];
  const collisions: MethodSummary[] = [];
  const held = new Set<string>();
  const factorStart = parts.candidates.length;
  const phonesCarried: string[] = [];
  // Numbers linked only because they are a second factor (not ones the user also signs in with).
  const factorOnly: string[] = [];
  const notCarried = parts.notCarried === undefined ? [] : parts.notCarried.slice();
  for (let position = 0; position < candidates.length; position++) {
    const { method, problem } = candidates[position];
    const isFactor = position >= factorStart;
    const keys = problem === undefined ? methodKeys(method) : [];
    const twin = keys.find((methodKey) => held.has(methodKey));
    if (isFactor) {
      // A number the user already signs in with is that factor already; a refused one is reported, not linked.
      if (problem !== undefined) notCarried.push(`second factor phone: ${problem}`);
      else if (usable.length > 0) {
        phonesCarried.push(method.phoneNumber as string);
        if (twin === undefined) {
          usable.push(method);
          factorOnly.push(method.phoneNumber as string);
        }
      } else notCarried.push('second factor phone: the user has no other login method to add it to');
      for (const methodKey of keys) held.add(methodKey);
      continue;
    }
    const reason = problem ?? (twin === undefined ? undefined : `same ${twin} as another login method of this user`);
    if (reason !== undefined) {
      collisions.push(summariseMethod(method, reason));
      continue;
    }
    for (const methodKey of keys) held.add(methodKey);
    usable.push(method);
  }

  if (parts.skipReason !== undefined) {
    return { index, key, problem: { kind: 'skipped', reason: parts.skipReason }, collisions: [] };
  }
  if (parts.invalidReason !== undefined) {
    return { index, key, problem: { kind: 'invalid', reason: parts.invalidReason }, collisions: [] };
  }
  const [primary, ...linked] = usable;
  if (primary === undefined) {
    const reasons = candidates.slice(0, factorStart).map((candidate) => candidate.problem);
    const reason = reasons.length === 0 ? 'no login method (no email, phone number or identity provider)' : reasons.join('; ');
    return { index, key, problem: { kind: 'invalid', reason }, collisions: [] };
  }
  const metadata = parts.metadata === undefined ? {} : compact(parts.metadata);
  // Built key by key in the order the JSON sent has always had (externalUserId, userMetadata, loginMethods).
  const user = {} as BulkImportUser;
  if (externalUserId !== undefined) user.externalUserId = externalUserId;
  if (Object.keys(metadata).length > 0) user.userMetadata = metadata;
  user.loginMethods = linked.length === 0 ? [primary] : [{ ...primary, isPrimary: true }, ...linked];
  const extras = hasExtras(parts, phonesCarried) ? applyExtras(user, parts.extras, parts.carry, phonesCarried) : undefined;
  notCarried.push(...(extras?.notCarried ?? []));
  // A value the database cannot hold would make the core refuse the lookup of the whole batch: refused here.
  const unstorable = unstorableText(user);
  if (unstorable !== undefined) return { index, key, problem: { kind: 'invalid', reason: unstorable }, collisions: [] };
  const record: SourceRecord = { index, key, user, collisions };
  if (notCarried.length > 0) record.notCarried = notCarried;
  if (extras !== undefined && extras.carried.length > 0) record.carried = extras.carried;
  if ((parts.extras?.passkeys?.rpIds.length ?? 0) > 0) record.passkeyRpIds = parts.extras!.passkeys!.rpIds;
  if ((parts.extras?.passkeys?.unconfiguredRpIds.length ?? 0) > 0) record.unconfiguredRpIds = parts.extras!.passkeys!.unconfiguredRpIds;
  if (factorOnly.length > 0 && parts.carry !== undefined) {
    record.factorPhones = { phones: factorOnly, source: parts.carry.source, markedAt: parts.carry.markedAt };
  }
  return record;
}

// Most users of most exports have nothing beyond login methods and profile: they skip the mapping entirely.
function hasExtras(parts: RecordParts, phonesCarried: string[]): boolean {
  const { extras } = parts;
  if (phonesCarried.length > 0 || (parts.carry?.mapping?.roleClaims.length ?? 0) > 0) return true;
  if (extras === undefined) return false;
  if (extras.passkeys?.candidate !== undefined) return true;
  return [extras.roles, extras.totpDevices, extras.recoveryCodes, extras.reEnrol].some((list) => list !== undefined && list.length > 0);
}

// Contacts are checked and normalised here, for every reader: a refused one makes its login method unusable
// and is reported with the user instead of being imported as written.
function applyContactRules(candidate: Candidate): Candidate {
  const { method } = candidate;
  const problems: string[] = candidate.problem === undefined ? [] : [candidate.problem];
  const normalised = { ...method };
  if (method.email !== undefined) {
    const email = checkEmail(method.email);
    if ('value' in email) normalised.email = email.value;
    else problems.push(email.reason);
  }
  if (method.phoneNumber !== undefined) {
    const phone = checkPhoneNumber(method.phoneNumber);
    if ('value' in phone) normalised.phoneNumber = phone.value;
    else problems.push(phone.reason);
  }
  return problems.length === 0 ? { method: normalised } : { method, problem: problems.join('; ') };
}

/** Drops keys whose value is undefined, so the JSON sent carries only what the export had. */
export function compact<T extends object>(value: T): T {
  // A plain loop: this runs several times per user, and entries/filter/fromEntries allocate three arrays each time.
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== undefined && field !== '') kept[key] = field;
  }
  return kept as T;
}

export function nonEmpty(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const text = String(value).trim();
  return text === '' ? undefined : text;
}

/** Milliseconds since the epoch from a number, a digit string or an ISO date; NaN when unreadable. */
export function parseTime(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'object' && value !== null && '$date' in value) return parseTime((value as { $date: unknown }).$date);
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : Number.NaN;
  const text = String(value).trim();
  if (/^\d+$/.test(text)) return Number(text);
  return Date.parse(text);
}

export function parseBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  const text = nonEmpty(value)?.toLowerCase();
  if (text === undefined) return undefined;
  if (['true', '1', 'yes', 'y'].includes(text)) return true;
  if (['false', '0', 'no', 'n'].includes(text)) return false;
  return undefined;
}
