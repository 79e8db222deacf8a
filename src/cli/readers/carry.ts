import type { BulkImportUser, LoginMethod, RecoveryCode, SourceRecord, TotpDevice } from '../bulk-user.js';
import { resolveRoles, rolesFromClaims, type Mapping } from '../mapping.js';
import type { PasskeyContext, PasskeyOutcome } from './passkey-types.js';

/** What every reader of a run shares to carry more than login methods: the mapping, the source's name, the run's time. */
export interface CarryContext {
  mapping?: Mapping;
  /** The source's name in the re-enrolment mark (`firebase`, `keycloak`, …). */
  source: string;
  /** Milliseconds since the epoch: when the run marked users to re-enrol. */
  markedAt: number;
  /** --rp-id and the core's webauthn_rp_ids, for the passkeys of the sources that give them out. */
  passkeys?: PasskeyContext;
}

/** Factor ids of the SDK's MFA recipe (contract M-5.8) that a source may have held for a user. */
export type FactorId = 'totp' | 'otp-phone' | 'otp-email' | 'webauthn';

/** What a reader found beyond login methods and profile; assembleRecord turns it into bulk-import fields and report lines. */
export interface Extras {
  /** Role and group names as the source writes them (Keycloak groups as paths, client roles as `client/role`). */
  roles?: string[];
  totpDevices?: TotpDevice[];
  recoveryCodes?: RecoveryCode[];
  /** Phone numbers the user proved as a second factor: each becomes a linked passwordless login method and `otp-phone`. */
  phoneFactors?: string[];
  /** Factors the user had whose secret the source never exports: the user is marked to enrol them again. */
  reEnrol?: FactorId[];
  /** The passkeys found (passkeys.ts): report lines, and whether one carried was a second factor. */
  passkeys?: PasskeyOutcome;
}

/** The metadata key that tells the app a user must enrol these factors again (decided for the whole project). */
export const RE_ENROLMENT_KEY = 'mfaReEnrolment';

/** The candidates a phone factor adds: one passwordless method per number (assembleRecord drops those already held). */
export function phoneFactorMethods(extras: Extras | undefined, common: Partial<LoginMethod>): LoginMethod[] {
  return [...new Set(extras?.phoneFactors ?? [])].map((phoneNumber) => ({ recipeId: 'passwordless' as const, phoneNumber, ...common }));
}

/**
 * Adds roles, second factors and marks to a user about to be sent, and says what was carried and what was not.
 * Role claims are read from the trusted metadata only (`appMetadata`, `privateMetadata`): a value the user could edit
 * never grants a role.
 */
export function applyExtras(
  user: BulkImportUser,
  extras: Extras | undefined,
  carry: CarryContext | undefined,
  phonesCarried: string[],
): { carried: string[]; notCarried: string[] } {
  const carried: string[] = [];
  const notCarried: string[] = [];
  const metadata = user.userMetadata ?? {};
  const mapping = carry?.mapping;

  const claimRoles = [
    ...rolesFromClaims(asObject(metadata.appMetadata), mapping),
    ...rolesFromClaims(asObject(metadata.privateMetadata), mapping),
  ];
  const { roles, unmapped } = resolveRoles([...(extras?.roles ?? []), ...claimRoles], mapping);
  if (roles.length > 0) {
    user.userRoles = roles.map((role) => ({ role, tenantIds: ['public'] }));
    carried.push(`roles: ${roles.join(', ')}`);
  }
  if (unmapped.length > 0) {
    notCarried.push(
      `roles ${unmapped.join(', ')}: ${mapping === undefined ? 'no --mapping file says which core role they become' : 'not in the mapping (unmapped: report)'}`,
    );
  }

  const factors: FactorId[] = [];
  const devices = extras?.totpDevices ?? [];
  if (devices.length > 0) {
    user.totpDevices = devices;
    factors.push('totp');
    for (const device of devices) carried.push(`totp device ${describeDevice(device)}`);
  }
  const codes = extras?.recoveryCodes ?? [];
  if (codes.length > 0) {
    user.recoveryCodes = codes;
    carried.push(`recovery codes: ${codes.length}`);
  }
  if (phonesCarried.length > 0) {
    factors.push('otp-phone');
    for (const phone of phonesCarried) carried.push(`second factor otp-phone: ${phone}`);
  }
  const reEnrol = [...new Set(extras?.reEnrol ?? [])];
  const passkeys = extras?.passkeys;
  if (passkeys?.candidate !== undefined) {
    if (user.loginMethods.some((method) => method.recipeId === 'webauthn')) {
      carried.push(...passkeys.carried);
      // A passkey that was a second factor is asked for after the first factor, as at the source; for a user whose
      // only login method is the passkey it is the first factor itself.
      if (passkeys.secondFactor && user.loginMethods.some((method) => method.recipeId !== 'webauthn')) factors.push('webauthn');
    } else if (!reEnrol.includes('webauthn')) reEnrol.push('webauthn');
  }
  if (factors.length > 0) {
    // An explicit list the export already holds (a SuperTokens export) is the source's word and is kept as it is.
    const internal = asObject(metadata._supertokens) ?? {};
    if (!Array.isArray(internal.requiredSecondaryFactors)) {
      metadata._supertokens = { ...internal, requiredSecondaryFactors: factors };
      carried.push(`required second factors: ${factors.join(', ')}`);
    }
  }

  if (reEnrol.length > 0 && carry !== undefined) {
    metadata[RE_ENROLMENT_KEY] = { required: true, factors: reEnrol, source: carry.source, markedAt: carry.markedAt };
    carried.push(`marked to re-enrol (${RE_ENROLMENT_KEY}): ${reEnrol.join(', ')}`);
  }
  if (Object.keys(metadata).length > 0) user.userMetadata = metadata;
  return { carried, notCarried };
}

function describeDevice(device: TotpDevice): string {
  const name = device.deviceName === undefined ? 'unnamed' : JSON.stringify(device.deviceName);
  const parts = [device.algorithm ?? 'SHA1', `${device.digits ?? 6} digits`, `${device.period ?? 30} s`];
  if (device.secretEncoding !== undefined && device.secretEncoding !== 'base32') parts.push(`${device.secretEncoding} secret`);
  return `${name} (${parts.join(', ')})`;
}

export function asObject(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** An object with at least one key, else undefined (so empty claims leave no key behind). */
export function nonEmptyObject(value: unknown): Record<string, unknown> | undefined {
  const object = asObject(value);
  return object !== undefined && Object.keys(object).length > 0 ? object : undefined;
}

/**
 * Takes a second-factor phone off a user (another user of the export signs in with that number, or has it as a factor
 * first): the linked method goes, `otp-phone` leaves the required factors when no such phone is left, and the user is
 * marked to enrol it again. The rest of the user is imported as it was.
 */
export function dropFactorPhone(record: SourceRecord, phone: string, reason: string): SourceRecord {
  const user = record.user;
  const factors = record.factorPhones;
  if (user === undefined || factors === undefined) return record;
  const methods = user.loginMethods.filter(
    (method) => !(method.recipeId === 'passwordless' && method.phoneNumber === phone && method.email === undefined),
  );
  const [first, ...rest] = methods;
  if (first === undefined) return record;
  const loginMethods: BulkImportUser['loginMethods'] = rest.length === 0 ? [withoutPrimaryFlag(first)] : [first, ...rest];
  const remaining = factors.phones.filter((number) => number !== phone);
  const metadata = { ...(user.userMetadata ?? {}) };
  const carried = (record.carried ?? []).filter((item) => item !== `second factor otp-phone: ${phone}`);
  const stillPhone = carried.some((item) => item.startsWith('second factor otp-phone: '));
  const internal = asObject(metadata._supertokens);
  if (!stillPhone && internal !== undefined && Array.isArray(internal.requiredSecondaryFactors)) {
    const required = (internal.requiredSecondaryFactors as unknown[]).filter((factor) => factor !== 'otp-phone');
    const index = carried.findIndex((item) => item.startsWith('required second factors: '));
    if (required.length > 0) {
      metadata._supertokens = { ...internal, requiredSecondaryFactors: required };
      if (index !== -1) carried[index] = `required second factors: ${required.join(', ')}`;
    } else {
      const { requiredSecondaryFactors: _dropped, ...others } = internal;
      if (Object.keys(others).length > 0) metadata._supertokens = others;
      else delete metadata._supertokens;
      if (index !== -1) carried.splice(index, 1);
    }
  }
  const mark = asObject(metadata[RE_ENROLMENT_KEY]);
  const marked = Array.isArray(mark?.factors) ? (mark.factors as string[]) : [];
  if (!marked.includes('otp-phone')) {
    metadata[RE_ENROLMENT_KEY] = { required: true, factors: [...marked, 'otp-phone'], source: factors.source, markedAt: factors.markedAt };
    const index = carried.findIndex((item) => item.startsWith(`marked to re-enrol (${RE_ENROLMENT_KEY}): `));
    const line = `marked to re-enrol (${RE_ENROLMENT_KEY}): ${[...marked, 'otp-phone'].join(', ')}`;
    if (index === -1) carried.push(line);
    else carried[index] = line;
  }
  const { factorPhones: _factors, carried: _carried, ...rest2 } = record;
  return {
    ...rest2,
    user: { ...user, loginMethods, userMetadata: metadata },
    notCarried: [...(record.notCarried ?? []), `second factor phone ${phone}: ${reason}; marked to re-enrol`],
    ...(carried.length > 0 && { carried }),
    ...(remaining.length > 0 && { factorPhones: { ...factors, phones: remaining } }),
  };
}

function withoutPrimaryFlag(method: LoginMethod): LoginMethod {
  const { isPrimary: _primary, ...rest } = method;
  return rest;
}
