import type { BulkImportUser, LoginMethod } from './bulk-user.js';

/** A user as POST /bulk-import/users/lookup answers it. */
export interface CoreUser {
  userId: string;
  externalUserId?: string;
  /** The user the login method belongs to (its primary user's id, or its own); cores before account linking omit it. */
  groupId?: string;
  recipeId: string;
  /** The login method's tenants, when the core's lookup answers them: the same email in another tenant is another account. */
  tenantIds?: string[];
  email?: string;
  phoneNumber?: string;
  thirdPartyId?: string;
  thirdPartyUserId?: string;
}

/**
 * What a user of the core holds beyond login methods, as the lookup answers it with `withMaterial`: counts and
 * names, never a secret. `groupId` is the user's id.
 */
export interface CoreMaterial {
  groupId: string;
  totpDevices: number;
  recoveryCodes: number;
  metadataKeys: string[];
  roles: { role: string; tenantId: string }[];
  lazyPassword: boolean;
}

/**
 * What the core holds for one user of the export, before or after sending. `incomplete`: the user of the core with
 * this old id holds some of its login methods and nobody else holds the others, but it lacks some of what the
 * record carries (`missing`: plain words); POST /bulk-import/users/complete adds it.
 */
export type Presence =
  | { kind: 'present'; userId: string }
  | { kind: 'incomplete'; userId: string; missing: string[] }
  | { kind: 'conflict'; reason: string }
  | { kind: 'absent' };

/** The keys of one login method that no other login method in the core may hold (contract §2). */
export function methodKeys(method: LoginMethod): string[] {
  switch (method.recipeId) {
    case 'emailpassword':
      return [`email ${method.email}`];
    case 'thirdparty':
      return [`${method.thirdPartyId} account ${method.thirdPartyUserId}`];
    case 'passwordless':
      return [
        ...(method.email !== undefined ? [`passwordless email ${method.email}`] : []),
        ...(method.phoneNumber !== undefined ? [`phone number ${method.phoneNumber}`] : []),
      ];
    case 'webauthn':
      return [
        `passkey email ${method.email}`,
        ...(method.credentials ?? []).map((credential) => `passkey ${credential.credentialId} at ${credential.rpId}`),
      ];
  }
}

/** Keys that must be unique in the core: two users of one export sharing one cannot both be imported. */
export function uniqueKeys(user: BulkImportUser): string[] {
  const keys = user.externalUserId === undefined ? [] : [`old id ${user.externalUserId}`];
  for (const method of user.loginMethods) keys.push(...methodKeys(method));
  // A user with several login methods is a primary user, and an email or phone number, whatever its login method,
  // belongs to at most one primary user.
  if (user.loginMethods.length > 1) {
    const contacts = new Set<string>();
    for (const method of user.loginMethods) {
      if (method.email !== undefined) contacts.add(`linked email ${method.email}`);
      if (method.phoneNumber !== undefined) contacts.add(`linked phone number ${method.phoneNumber}`);
    }
    keys.push(...contacts);
  }
  return keys;
}

/** Adds the lookup keys of one user to a lookup request body. */
export function addLookupKeys(body: LookupBody, user: BulkImportUser): void {
  if (user.externalUserId !== undefined) body.externalUserIds.push(user.externalUserId);
  for (const method of user.loginMethods) {
    if (method.email !== undefined && method.recipeId === 'emailpassword') body.emailPasswordEmails.push(method.email);
    if (method.email !== undefined && method.recipeId === 'passwordless') body.passwordlessEmails.push(method.email);
    if (method.email !== undefined && method.recipeId === 'webauthn') (body.webauthnEmails ??= []).push(method.email);
    if (method.phoneNumber !== undefined) body.phoneNumbers.push(method.phoneNumber);
    if (method.recipeId === 'thirdparty') {
      body.thirdPartyAccounts.push({ thirdPartyId: method.thirdPartyId!, thirdPartyUserId: method.thirdPartyUserId! });
    }
  }
}

export interface LookupBody {
  externalUserIds: string[];
  userIds: string[];
  /** Among password users, and among passwordless users: each login method's email is looked up for its recipe. */
  emailPasswordEmails: string[];
  passwordlessEmails: string[];
  /** Among webauthn login methods; left out when empty, so a core from before passkeys is asked as before. */
  webauthnEmails?: string[];
  phoneNumbers: string[];
  thirdPartyAccounts: { thirdPartyId: string; thirdPartyUserId: string }[];
  /** Ask for the material of each user found (a core without it ignores the flag and answers none). */
  withMaterial?: boolean;
}

export function emptyLookup(): LookupBody {
  return { externalUserIds: [], userIds: [], emailPasswordEmails: [], passwordlessEmails: [], phoneNumbers: [], thirdPartyAccounts: [] };
}

/** The users of one lookup answer, indexed by what identifies them, so each user of a batch is one probe. */
export class CoreIndex {
  private readonly byOldId = new Map<string, CoreUser>();
  private readonly byAccount = new Map<string, CoreUser[]>();
  private readonly material: Map<string, CoreMaterial>;

  constructor(users: readonly CoreUser[], material: readonly CoreMaterial[] = []) {
    this.material = new Map(material.map((entry) => [entry.groupId, entry]));
    for (const user of users) {
      if (user.externalUserId !== undefined) this.byOldId.set(user.externalUserId, user);
      for (const key of accountKeysOf(user)) {
        const holders = this.byAccount.get(key);
        if (holders) holders.push(user);
        else this.byAccount.set(key, [user]);
      }
    }
  }

  /** Nothing was found: every user looked up is absent (a fresh run's batches, which are not looked up at all). */
  get empty(): boolean {
    return this.byOldId.size === 0 && this.byAccount.size === 0;
  }

  withOldId(externalUserId: string): CoreUser | undefined {
    return this.byOldId.get(externalUserId);
  }

  /** Undefined when the lookup was not asked for it, or the core does not answer it. */
  materialOf(groupId: string): CoreMaterial | undefined {
    return this.material.get(groupId);
  }

  /** The users holding this login method's account (for passwordless: its email or its phone number). */
  holders(method: LoginMethod): CoreUser[] {
    const found = new Set<CoreUser>();
    for (const key of accountKeysOf(method)) for (const user of this.byAccount.get(key) ?? []) found.add(user);
    return [...found];
  }
}

function accountKeysOf(account: {
  recipeId: string;
  email?: string;
  phoneNumber?: string;
  thirdPartyId?: string;
  thirdPartyUserId?: string;
}) {
  switch (account.recipeId) {
    case 'emailpassword':
      return [`ep ${account.email}`];
    case 'thirdparty':
      return [`tp ${account.thirdPartyId} ${account.thirdPartyUserId}`];
    case 'passwordless':
      return [
        ...(account.email !== undefined ? [`ple ${account.email}`] : []),
        ...(account.phoneNumber !== undefined ? [`plp ${account.phoneNumber}`] : []),
      ];
    case 'webauthn':
      return account.email !== undefined ? [`wa ${account.email}`] : [];
    default:
      return [];
  }
}

/**
 * Whether the core already holds this user: every login method held by one user of the core, under the same old id
 * (or, without an old id, by a user without one), is this user; anything else holding its old id or one of its
 * accounts is someone else's, and importing would fail.
 */
export function presenceOf(user: BulkImportUser, core: CoreIndex): Presence {
  if (core.empty) return { kind: 'absent' };
  const holders = user.loginMethods.map((method) => core.holders(method).filter((holder) => sharesTenant(holder, method)));
  const byOldId = user.externalUserId === undefined ? undefined : core.withOldId(user.externalUserId);
  if (byOldId !== undefined) {
    const userId = groupOf(byOldId);
    const heldHere = holders.map((found) => found.length > 0 && found.every((holder) => groupOf(holder) === userId));
    const elsewhere = holders.flat().find((holder) => groupOf(holder) !== userId);
    if (elsewhere !== undefined && heldHere.some(Boolean)) {
      return {
        kind: 'conflict',
        reason: `${describe(elsewhere)} already exists in the core as another user (${elsewhere.externalUserId ?? elsewhere.userId}), so user ${user.externalUserId} cannot be completed with it`,
      };
    }
    if (!heldHere.some(Boolean)) {
      return {
        kind: 'conflict',
        reason: `old id ${user.externalUserId} already belongs to another account in the core (${describe(byOldId)})`,
      };
    }
    const missing = [
      ...user.loginMethods.filter((_, i) => !heldHere[i]).map(describeMethod),
      ...missingMaterial(user, core.materialOf(userId)),
    ];
    if (missing.length > 0) return { kind: 'incomplete', userId, missing };
    if (heldWhole(user, holders, userId)) return { kind: 'present', userId };
    return {
      kind: 'conflict',
      reason: `old id ${user.externalUserId} already belongs to another account in the core (${describe(byOldId)})`,
    };
  }
  const holder = holders.flat()[0];
  if (holder === undefined) return { kind: 'absent' };
  if (user.externalUserId === undefined && holder.externalUserId === undefined && heldWhole(user, holders, groupOf(holder))) {
    return { kind: 'present', userId: groupOf(holder) };
  }
  return {
    kind: 'conflict',
    reason: `${describe(holder)} already exists in the core as another user (${holder.externalUserId ?? holder.userId})`,
  };
}

// Accounts are unique per tenant: a holder in none of the method's tenants is someone else in another tenant. A core
// whose lookup does not answer tenants is taken at its word that the holder is this account.
function sharesTenant(holder: CoreUser, method: LoginMethod): boolean {
  if (holder.tenantIds === undefined) return true;
  const tenants = method.tenantIds ?? ['public'];
  return holder.tenantIds.some((tenant) => tenants.includes(tenant));
}

/**
 * What the record carries that the core's user has none of, judged as POST /bulk-import/users/complete judges it:
 * a real password hash for a `$lazy$` one, TOTP devices or recovery codes when it has none, metadata keys it lacks,
 * role assignments it lacks. Nothing without the core's material (a core that does not answer it).
 */
function missingMaterial(user: BulkImportUser, material: CoreMaterial | undefined): string[] {
  if (material === undefined) return [];
  const missing: string[] = [];
  const realHash = user.loginMethods.some((method) => method.passwordHash !== undefined && !method.passwordHash.startsWith('$lazy$'));
  if (realHash && material.lazyPassword) missing.push('password hash');
  if ((user.totpDevices?.length ?? 0) > 0 && material.totpDevices === 0) missing.push('TOTP devices');
  if ((user.recoveryCodes?.length ?? 0) > 0 && material.recoveryCodes === 0) missing.push('recovery codes');
  const keys = new Set(material.metadataKeys);
  const lacking = Object.entries(user.userMetadata ?? {}).filter(([key, value]) => value !== null && !keys.has(key));
  if (lacking.length > 0) missing.push(`metadata keys ${lacking.map(([key]) => key).join(', ')}`);
  const assigned = new Set(material.roles.map(({ role, tenantId }) => `${tenantId}\u0000${role}`));
  const roles = (user.userRoles ?? []).filter(({ role, tenantIds }) =>
    tenantIds.some((tenantId) => !assigned.has(`${tenantId}\u0000${role}`)),
  );
  if (roles.length > 0) missing.push(`roles ${roles.map(({ role }) => role).join(', ')}`);
  return missing;
}

function describeMethod(method: LoginMethod): string {
  return method.recipeId === 'thirdparty' ? `thirdparty login method (${method.thirdPartyId})` : `${method.recipeId} login method`;
}

/** Whether each login method of the user is held by exactly one login method of the given core user, and that one is it. */
function heldWhole(user: BulkImportUser, holders: CoreUser[][], groupId: string): boolean {
  return user.loginMethods.every(
    (method, i) => holders[i].length === 1 && groupOf(holders[i][0]) === groupId && sameAccount(holders[i][0], method),
  );
}

function groupOf(user: CoreUser): string {
  return user.groupId ?? user.userId;
}

function holdsAccount(candidate: CoreUser, method: LoginMethod): boolean {
  if (candidate.recipeId !== method.recipeId) return false;
  switch (method.recipeId) {
    case 'emailpassword':
      return candidate.email === method.email;
    case 'thirdparty':
      return candidate.thirdPartyId === method.thirdPartyId && candidate.thirdPartyUserId === method.thirdPartyUserId;
    case 'passwordless':
      return (
        (method.email !== undefined && candidate.email === method.email) ||
        (method.phoneNumber !== undefined && candidate.phoneNumber === method.phoneNumber)
      );
    case 'webauthn':
      return candidate.email === method.email;
  }
}

function sameAccount(candidate: CoreUser, method: LoginMethod): boolean {
  if (!holdsAccount(candidate, method)) return false;
  if (method.recipeId !== 'passwordless') return true;
  return candidate.email === method.email && candidate.phoneNumber === method.phoneNumber;
}

function describe(user: CoreUser): string {
  if (user.recipeId === 'thirdparty') return `${user.thirdPartyId} account ${user.thirdPartyUserId}`;
  const contact = [user.email, user.phoneNumber].filter((value) => value !== undefined).join(' / ');
  return `${user.recipeId} user ${contact}`;
}
