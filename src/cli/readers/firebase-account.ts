import { decodeEitherBase64, isPaddedCanonicalBase64 } from '../../base64.js';
import type { LoginMethod, SourceRecord } from '../bulk-user.js';
import { CliError } from '../cli-error.js';
import { assembleRecord, compact, nonEmpty, parseBoolean, parseTime, type Candidate } from './assemble.js';
import type { HashConfig } from './hash-config.js';
import { CSV_PROVIDER_COLUMNS } from './firebase-csv-layout.js';
import { firebaseThirdPartyId, type ProviderOverrides } from './provider-names.js';
import { pendingMethod } from './pending-method.js';
import type { CarryContext, Extras, FactorId } from './carry.js';

/** One user of the platform's export, whichever file format it came from. */
export interface FirebaseAccount {
  localId?: string;
  email?: string;
  emailVerified?: boolean;
  passwordHash?: string;
  salt?: string;
  createdAt?: unknown;
  phoneNumber?: string;
  disabled?: boolean;
  displayName?: string;
  photoUrl?: string;
  /** The JSON text of the custom claims, as exported. */
  customAttributes?: string;
  /** Fields present in the export that the core cannot hold. */
  notCarried: string[];
  providers: FirebaseProvider[];
  /** Second factors enrolled at the platform (`mfaInfo`, or the Admin SDK's `multiFactor.enrolledFactors`). */
  secondFactors?: FirebaseSecondFactor[];
}

/** A phone factor carries its number; a TOTP factor never carries its secret (the platform does not export it). */
export interface FirebaseSecondFactor {
  kind: 'phone' | 'totp' | 'unknown';
  phoneNumber?: string;
}

export interface FirebaseProvider {
  providerId: string;
  rawId?: string;
  email?: string;
  displayName?: string;
  photoUrl?: string;
}

export interface FirebaseOptions {
  hashConfig?: HashConfig;
  includeDisabled: boolean;
  providerOverrides: ProviderOverrides;
  /** Password users are imported pending for this lazy-migration source when the export or --hash-config lacks hashes. */
  lazySource?: string;
  carry?: CarryContext;
}

// Password and phone sign-in show up as provider entries in Admin SDK dumps; the top-level fields
// already carry them.
export const NOT_THIRD_PARTY = new Set(['password', 'phone', 'emailLink', 'anonymous', 'firebase']);

// Providers in the order of the CSV export's columns, so that JSON and CSV of one export give the same user.
const PROVIDER_ORDER = CSV_PROVIDER_COLUMNS.map(([providerId]) => providerId);
const providerRank = (providerId: string) => {
  const rank = PROVIDER_ORDER.indexOf(providerId);
  return rank === -1 ? PROVIDER_ORDER.length : rank;
};

export function firebaseRecord(account: FirebaseAccount, index: number, options: FirebaseOptions): SourceRecord {
  const providers = thirdPartyProviders(account.providers);
  const email = nonEmpty(account.email);
  const phoneNumber = nonEmpty(account.phoneNumber);
  const isVerified = account.emailVerified === true;
  const timeJoined = parseTime(account.createdAt);
  const common = compact({ isVerified, timeJoinedInMSSinceEpoch: timeJoined });
  const candidates: Candidate[] = [];

  const hasPassword = nonEmpty(account.passwordHash) !== undefined;
  if (
    options.lazySource !== undefined &&
    (account.providers.some((p) => p.providerId === 'password') || hasPassword) &&
    (!hasPassword || !options.hashConfig)
  ) {
    const method = pendingMethod(options.lazySource, email, common, { legacyUserId: nonEmpty(account.localId) });
    candidates.push({ method, problem: email ? undefined : 'password user without an email' });
  } else if (hasPassword) {
    candidates.push(passwordCandidate(account, email, common, options.hashConfig));
  }
  for (const provider of providers) {
    const method: LoginMethod = compact({
      recipeId: 'thirdparty' as const,
      email: nonEmpty(provider.email) ?? email,
      thirdPartyId: firebaseThirdPartyId(provider.providerId, options.providerOverrides),
      thirdPartyUserId: nonEmpty(provider.rawId),
      ...common,
    });
    const problem = !method.thirdPartyUserId
      ? `${provider.providerId} identity has no rawId`
      : !method.email
        ? `${provider.providerId} identity has no email (the core needs one for third-party users)`
        : undefined;
    candidates.push({ method, problem });
  }
  // Email-link users have an email and nothing else; phone users may also have an email on file.
  if (phoneNumber !== undefined || candidates.length === 0) {
    if (phoneNumber !== undefined || email !== undefined) {
      const onlyMethod = candidates.length === 0;
      candidates.push({
        method: compact({ recipeId: 'passwordless' as const, email: onlyMethod ? email : undefined, phoneNumber, ...common }),
      });
    }
  }
  const timeProblem =
    timeJoined !== undefined && Number.isNaN(timeJoined) ? `createdAt ${String(account.createdAt)} is not a time` : undefined;
  const claims = parseClaims(account.customAttributes);
  const factors = secondFactorsOf(account);
  return assembleRecord({
    index,
    externalUserId: nonEmpty(account.localId),
    candidates,
    invalidReason: timeProblem,
    skipReason:
      account.disabled === true && !options.includeDisabled
        ? 'disabled in the source (pass --include-disabled to import disabled users)'
        : candidates.length === 0
          ? 'anonymous user: no email, phone number, password or identity provider to sign in with'
          : undefined,
    metadata: {
      displayName: nonEmpty(account.displayName),
      photoUrl: nonEmpty(account.photoUrl),
      // Custom claims are set by the app's servers only: trusted.
      appMetadata: claims.value,
      providers: providers.length === 0 ? undefined : providers.map((provider) => compact({ ...provider })),
    },
    notCarried: [...account.notCarried, ...(claims.notCarried ? ['customAttributes: not a JSON object'] : []), ...factors.notCarried],
    extras: factors.extras,
    carry: options.carry,
  });
}

// A plain loop, and a sort only when there is something to order: most users have no third-party provider, and the
// array builtins' code is specialised on the array it first saw, so an empty one later made V8 recompile the reader.
function thirdPartyProviders(all: FirebaseProvider[]): FirebaseProvider[] {
  const providers: FirebaseProvider[] = [];
  for (const provider of all) if (!NOT_THIRD_PARTY.has(provider.providerId)) providers.push(provider);
  if (providers.length > 1) {
    providers.sort((a, b) => providerRank(a.providerId) - providerRank(b.providerId) || a.providerId.localeCompare(b.providerId));
  }
  return providers;
}

/** Phone factors are carried (their number is in the export); TOTP factors are marked to re-enrol, never dropped. */
function secondFactorsOf(account: FirebaseAccount): { extras: Extras; notCarried: string[] } {
  const phoneFactors: string[] = [];
  const reEnrol: FactorId[] = [];
  const notCarried: string[] = [];
  (account.secondFactors ?? []).forEach((factor, position) => {
    if (factor.kind === 'phone' && factor.phoneNumber !== undefined) phoneFactors.push(factor.phoneNumber);
    else if (factor.kind === 'totp') {
      reEnrol.push('totp');
      notCarried.push(`mfaInfo[${position}] totp: the platform never exports TOTP secrets; marked to re-enrol`);
    } else {
      reEnrol.push('totp');
      notCarried.push(`mfaInfo[${position}]: a second factor of an unknown kind; marked to re-enrol`);
    }
  });
  return { extras: { phoneFactors, reEnrol }, notCarried };
}

function parseClaims(text: string | undefined): { value?: Record<string, unknown>; notCarried?: true } {
  if (text === undefined) return {};
  try {
    const value = JSON.parse(text) as unknown;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return { value: value as Record<string, unknown> };
  } catch {
    // reported below as not carried
  }
  return { notCarried: true };
}

function passwordCandidate(
  account: FirebaseAccount,
  email: string | undefined,
  common: Partial<LoginMethod>,
  hashConfig: HashConfig | undefined,
): Candidate {
  if (!hashConfig) {
    throw new CliError("this export holds password hashes: pass --hash-config <file> with the project's hash_config block");
  }
  const hash = standardBase64(account.passwordHash);
  const salt = standardBase64(account.salt);
  const problem = !email
    ? 'password user without an email'
    : !hash
      ? 'passwordHash is not valid Base64'
      : !salt
        ? 'salt is missing or not valid Base64'
        : undefined;
  const passwordHash = hash && salt ? scryptPasswordHash(hash, salt, hashConfig) : undefined;
  return {
    method: compact({ recipeId: 'emailpassword' as const, email, passwordHash, hashingAlgorithm: 'idp_scrypt', ...common }),
    problem,
  };
}

/** The platform's hash of one user as the core imports it: the export's hash and salt with the project's parameters. */
export function scryptPasswordHash(hash: string, salt: string, hashConfig: HashConfig): string {
  const key = hashConfig.keyName === undefined ? '' : `$k=${hashConfig.keyName}`;
  return `$f_scrypt$${hash}$${salt}$m=${hashConfig.memCost}$r=${hashConfig.rounds}$s=${hashConfig.saltSeparator}${key}`;
}

/** Exports use the standard alphabet (CLI) or the URL-safe one (Admin SDK); the core gets standard. */
export function standardBase64(value: unknown): string | undefined {
  const text = nonEmpty(value);
  if (text === undefined) return undefined;
  // Nearly every export writes its hashes and salts canonically already: they are kept as they are.
  if (isPaddedCanonicalBase64(text)) return text;
  const bytes = decodeEitherBase64(text);
  return bytes && bytes.length > 0 ? bytes.toString('base64') : undefined;
}

export function fromJsonUser(raw: unknown): FirebaseAccount {
  const user = (raw ?? {}) as Record<string, unknown>;
  const providers = Array.isArray(user.providerUserInfo) ? (user.providerUserInfo as Record<string, unknown>[]) : [];
  return {
    localId: nonEmpty(user.localId ?? user.uid),
    email: nonEmpty(user.email),
    emailVerified: parseBoolean(user.emailVerified),
    passwordHash: nonEmpty(user.passwordHash),
    salt: nonEmpty(user.salt ?? user.passwordSalt),
    createdAt: user.createdAt ?? (user.metadata as { creationTime?: unknown } | undefined)?.creationTime,
    phoneNumber: nonEmpty(user.phoneNumber),
    disabled: parseBoolean(user.disabled),
    displayName: nonEmpty(user.displayName),
    photoUrl: nonEmpty(user.photoUrl),
    customAttributes: nonEmpty(user.customAttributes),
    notCarried: [],
    secondFactors: secondFactorsFromJson(user),
    providers: providersFromJson(providers),
  };
}

function providersFromJson(entries: Record<string, unknown>[]): FirebaseProvider[] {
  const providers: FirebaseProvider[] = [];
  for (const entry of entries) {
    const provider = providerFromJson(entry);
    if (provider !== undefined) providers.push(provider);
  }
  return providers;
}

/** One `providerUserInfo` entry; undefined for one without a providerId. */
export function providerFromJson(p: Record<string, unknown> | null): FirebaseProvider | undefined {
  if (p === null || typeof p !== 'object' || typeof p.providerId !== 'string') return undefined;
  return {
    providerId: p.providerId,
    rawId: nonEmpty(p.rawId ?? p.uid),
    email: nonEmpty(p.email),
    displayName: nonEmpty(p.displayName),
    photoUrl: nonEmpty(p.photoUrl),
  };
}

// `auth:export` and the REST API write `mfaInfo: [{mfaEnrollmentId, displayName, phoneInfo: "+1…", enrolledAt}]` (a
// TOTP factor as `totpInfo: {}`); Admin SDK dumps write `multiFactor: {enrolledFactors: [{factorId: "phone"|"totp",
// phoneNumber}]}`.
function secondFactorsFromJson(user: Record<string, unknown>): FirebaseSecondFactor[] {
  const factors: FirebaseSecondFactor[] = [];
  if (Array.isArray(user.mfaInfo)) {
    for (const entry of user.mfaInfo as Record<string, unknown>[]) {
      if (entry === null || typeof entry !== 'object') continue;
      const phone = nonEmpty(entry.phoneInfo);
      if (phone !== undefined) factors.push({ kind: 'phone', phoneNumber: phone });
      else if (entry.totpInfo !== undefined) factors.push({ kind: 'totp' });
      else factors.push({ kind: 'unknown' });
    }
  }
  const enrolled = (user.multiFactor as { enrolledFactors?: unknown } | undefined)?.enrolledFactors;
  if (factors.length === 0 && Array.isArray(enrolled)) {
    for (const entry of enrolled as Record<string, unknown>[]) {
      if (entry === null || typeof entry !== 'object') continue;
      const phone = nonEmpty(entry.phoneNumber);
      if (entry.factorId === 'phone' && phone !== undefined) factors.push({ kind: 'phone', phoneNumber: phone });
      else if (entry.factorId === 'totp') factors.push({ kind: 'totp' });
      else factors.push({ kind: 'unknown' });
    }
  }
  return factors;
}

/** Whether the user lists any second factor in either of those shapes (without reading them). */
export function holdsSecondFactors(user: Record<string, unknown>): boolean {
  const enrolled = (user.multiFactor as { enrolledFactors?: unknown } | undefined)?.enrolledFactors;
  return (Array.isArray(user.mfaInfo) && user.mfaInfo.length > 0) || (Array.isArray(enrolled) && enrolled.length > 0);
}

export function fromCsvRow(row: string[]): FirebaseAccount {
  const cell = (i: number) => nonEmpty(row[i]);
  const providers = CSV_PROVIDER_COLUMNS.filter(([, column]) => cell(column) !== undefined).map(([providerId, column]) => ({
    providerId,
    rawId: cell(column),
    email: cell(column + 1),
    displayName: cell(column + 2),
    photoUrl: cell(column + 3),
  }));
  return {
    localId: cell(0),
    email: cell(1),
    emailVerified: parseBoolean(row[2]),
    passwordHash: cell(3),
    salt: cell(4),
    createdAt: cell(23),
    phoneNumber: cell(25),
    disabled: parseBoolean(row[26]),
    displayName: cell(5),
    photoUrl: cell(6),
    customAttributes: cell(27),
    notCarried: [],
    providers,
  };
}
