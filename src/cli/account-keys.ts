import type { BulkImportUser, LoginMethod } from './bulk-user.js';

/** A user as POST /bulk-import/users/lookup answers it. */
export interface CoreUser {
  userId: string;
  externalUserId?: string;
  recipeId: string;
  email?: string;
  phoneNumber?: string;
  thirdPartyId?: string;
  thirdPartyUserId?: string;
}

/** What the core holds for one user of the export, before or after sending. */
export type Presence = { kind: 'present'; userId: string } | { kind: 'conflict'; reason: string } | { kind: 'absent' };

/** Keys that must be unique in the core: two users of one export sharing one cannot both be imported. */
export function uniqueKeys(user: BulkImportUser): string[] {
  const method = user.loginMethods[0];
  const keys = user.externalUserId === undefined ? [] : [`old id ${user.externalUserId}`];
  if (method.recipeId === 'emailpassword') keys.push(`email ${method.email}`);
  if (method.recipeId === 'passwordless') {
    if (method.email !== undefined) keys.push(`passwordless email ${method.email}`);
    if (method.phoneNumber !== undefined) keys.push(`phone number ${method.phoneNumber}`);
  }
  if (method.recipeId === 'thirdparty') keys.push(`${method.thirdPartyId} account ${method.thirdPartyUserId}`);
  return keys;
}

/** Adds the lookup keys of one user to a lookup request body. */
export function addLookupKeys(body: LookupBody, user: BulkImportUser): void {
  const method = user.loginMethods[0];
  if (user.externalUserId !== undefined) body.externalUserIds.push(user.externalUserId);
  if (method.email !== undefined && method.recipeId !== 'thirdparty') body.emails.push(method.email);
  if (method.phoneNumber !== undefined) body.phoneNumbers.push(method.phoneNumber);
  if (method.recipeId === 'thirdparty') {
    body.thirdPartyAccounts.push({ thirdPartyId: method.thirdPartyId!, thirdPartyUserId: method.thirdPartyUserId! });
  }
}

export interface LookupBody {
  externalUserIds: string[];
  userIds: string[];
  emails: string[];
  phoneNumbers: string[];
  thirdPartyAccounts: { thirdPartyId: string; thirdPartyUserId: string }[];
}

export function emptyLookup(): LookupBody {
  return { externalUserIds: [], userIds: [], emails: [], phoneNumbers: [], thirdPartyAccounts: [] };
}

/** The users of one lookup answer, indexed by what identifies them, so each user of a batch is one probe. */
export class CoreIndex {
  private readonly byOldId = new Map<string, CoreUser>();
  private readonly byAccount = new Map<string, CoreUser[]>();

  constructor(users: readonly CoreUser[]) {
    for (const user of users) {
      if (user.externalUserId !== undefined) this.byOldId.set(user.externalUserId, user);
      for (const key of accountKeysOf(user)) {
        const holders = this.byAccount.get(key);
        if (holders) holders.push(user);
        else this.byAccount.set(key, [user]);
      }
    }
  }

  withOldId(externalUserId: string): CoreUser | undefined {
    return this.byOldId.get(externalUserId);
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
    default:
      return [];
  }
}

/**
 * Whether the core already holds this user: the same login method under the same old id (or, without an old
 * id, the same login method on a user without one) is this user; anything else holding its old id or its
 * account is someone else's, and importing would fail.
 */
export function presenceOf(user: BulkImportUser, core: CoreIndex): Presence {
  const method = user.loginMethods[0];
  const holders = core.holders(method);
  const byOldId = user.externalUserId === undefined ? undefined : core.withOldId(user.externalUserId);
  if (byOldId !== undefined) {
    if (holders.length === 1 && holders[0] === byOldId && sameAccount(byOldId, method)) return { kind: 'present', userId: byOldId.userId };
    return {
      kind: 'conflict',
      reason: `old id ${user.externalUserId} already belongs to another account in the core (${describe(byOldId)})`,
    };
  }
  if (holders.length === 0) return { kind: 'absent' };
  const holder = holders[0];
  if (user.externalUserId === undefined && holders.length === 1 && holder.externalUserId === undefined && sameAccount(holder, method)) {
    return { kind: 'present', userId: holder.userId };
  }
  return {
    kind: 'conflict',
    reason: `${describe(holder)} already exists in the core as another user (${holder.externalUserId ?? holder.userId})`,
  };
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
