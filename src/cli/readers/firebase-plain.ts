import type { BulkImportUser, LoginMethod, SourceRecord } from '../bulk-user.js';
import { unstorableText } from '../../bulk-import/validate/storable-text.js';
import { checkEmail, checkPhoneNumber } from '../contact-rules.js';
import { compact, nonEmpty, parseBoolean, parseTime } from './assemble.js';
import {
  holdsSecondFactors,
  NOT_THIRD_PARTY,
  providerFromJson,
  scryptPasswordHash,
  standardBase64,
  type FirebaseOptions,
  type FirebaseProvider,
} from './firebase-account.js';
import { firebaseThirdPartyId } from './provider-names.js';

// Most users of an export have one way to sign in and nothing else: a password, one identity provider, an email link
// or a phone number, with a name or a photo. For them this builds the record firebaseRecord would, without the
// account, candidates and copies the general path makes for every user; at 20,000 users that path costs the command
// about a tenth of its CPU, mostly compiling it. Anything else (a second login method, claims, second factors, a
// disabled user, a value the rules refuse, lazy migration, roles) is left to the general path: undefined.

export function plainFirebaseRecord(raw: unknown, index: number, options: FirebaseOptions): SourceRecord | undefined {
  if (options.lazySource !== undefined || (options.carry?.mapping?.roleClaims.length ?? 0) > 0) return undefined;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const user = raw as Record<string, unknown>;
  if (nonEmpty(user.customAttributes) !== undefined || holdsSecondFactors(user) || parseBoolean(user.disabled) === true) return undefined;
  const provider = loneThirdPartyProvider(user.providerUserInfo);
  if (provider === null) return undefined;
  const timeJoinedInMSSinceEpoch = parseTime(user.createdAt ?? (user.metadata as { creationTime?: unknown } | undefined)?.creationTime);
  if (timeJoinedInMSSinceEpoch !== undefined && Number.isNaN(timeJoinedInMSSinceEpoch)) return undefined;
  const email = nonEmpty(user.email);
  const phoneNumber = nonEmpty(user.phoneNumber);
  const isVerified = parseBoolean(user.emailVerified) === true;

  let method: LoginMethod;
  if (nonEmpty(user.passwordHash) !== undefined) {
    if (provider !== undefined || phoneNumber !== undefined || email === undefined || options.hashConfig === undefined) return undefined;
    const hash = standardBase64(user.passwordHash);
    const salt = standardBase64(user.salt ?? user.passwordSalt);
    if (hash === undefined || salt === undefined) return undefined;
    const passwordHash = scryptPasswordHash(hash, salt, options.hashConfig);
    method = compact({
      recipeId: 'emailpassword',
      email,
      passwordHash,
      hashingAlgorithm: 'idp_scrypt',
      isVerified,
      timeJoinedInMSSinceEpoch,
    });
  } else if (provider !== undefined) {
    const thirdPartyUserId = provider.rawId;
    const thirdPartyEmail = provider.email ?? email;
    if (phoneNumber !== undefined || thirdPartyUserId === undefined || thirdPartyEmail === undefined) return undefined;
    const thirdPartyId = firebaseThirdPartyId(provider.providerId, options.providerOverrides);
    method = compact({
      recipeId: 'thirdparty',
      email: thirdPartyEmail,
      thirdPartyId,
      thirdPartyUserId,
      isVerified,
      timeJoinedInMSSinceEpoch,
    });
  } else if (email !== undefined || phoneNumber !== undefined) {
    method = compact({ recipeId: 'passwordless', email, phoneNumber, isVerified, timeJoinedInMSSinceEpoch });
  } else return undefined;
  if (!followsContactRules(method)) return undefined;

  const externalUserId = nonEmpty(user.localId ?? user.uid);
  const metadata = compact({
    displayName: nonEmpty(user.displayName),
    photoUrl: nonEmpty(user.photoUrl),
    providers: provider === undefined ? undefined : [compact(provider)],
  });
  // Key by key in the order of the general path (and of the JSON sent).
  const imported = {} as BulkImportUser;
  if (externalUserId !== undefined) imported.externalUserId = externalUserId;
  if (Object.keys(metadata).length > 0) imported.userMetadata = metadata;
  imported.loginMethods = [method];
  if (unstorableText(imported) !== undefined) return undefined;
  const key = externalUserId ?? method.email ?? method.phoneNumber ?? `record ${index + 1}`;
  return { index, key, user: imported, collisions: [] };
}

/** The user's one third-party provider, undefined when there is none, null when there are several. */
function loneThirdPartyProvider(entries: unknown): FirebaseProvider | undefined | null {
  if (!Array.isArray(entries)) return undefined;
  let found: FirebaseProvider | undefined;
  for (const entry of entries as Record<string, unknown>[]) {
    const provider = providerFromJson(entry);
    if (provider === undefined || NOT_THIRD_PARTY.has(provider.providerId)) continue;
    if (found !== undefined) return null;
    found = provider;
  }
  return found;
}

/** Applies the contact rules in place: false when one refuses a value (the general path reports it). */
function followsContactRules(method: LoginMethod): boolean {
  if (method.email !== undefined) {
    const email = checkEmail(method.email);
    if (!('value' in email)) return false;
    method.email = email.value;
  }
  if (method.phoneNumber !== undefined) {
    const phone = checkPhoneNumber(method.phoneNumber);
    if (!('value' in phone)) return false;
    method.phoneNumber = phone.value;
  }
  return true;
}
