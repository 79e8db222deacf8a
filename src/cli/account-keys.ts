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
export type Presence =
  | { kind: 'present'; userId: string }
  | { kind: 'conflict'; reason: string }
  | { kind: 'absent' };

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

/**
 * Whether the core already holds this user: the same login method under the same old id (or, without an old
 * id, the same login method on a user without one) is this user; anything else holding its old id or its
 * account is someone else's, and importing would fail.
 */
export function presenceOf(user: BulkImportUser, coreUsers: readonly CoreUser[]): Presence {
  const method = user.loginMethods[0];
  const holders = coreUsers.filter((candidate) => holdsAccount(candidate, method));
  const byOldId = user.externalUserId === undefined ? undefined : coreUsers.find((candidate) => candidate.externalUserId === user.externalUserId);
  if (byOldId !== undefined) {
    if (holders.length === 1 && holders[0] === byOldId && sameAccount(byOldId, method)) return { kind: 'present', userId: byOldId.userId };
    return { kind: 'conflict', reason: `old id ${user.externalUserId} already belongs to another account in the core (${describe(byOldId)})` };
  }
  if (holders.length === 0) return { kind: 'absent' };
  const holder = holders[0];
  if (user.externalUserId === undefined && holders.length === 1 && holder.externalUserId === undefined && sameAccount(holder, method)) {
    return { kind: 'present', userId: holder.userId };
  }
  return { kind: 'conflict', reason: `${describe(holder)} already exists in the core as another user (${holder.externalUserId ?? holder.userId})` };
}

function holdsAccount(candidate: CoreUser, method: LoginMethod): boolean {
  if (candidate.recipeId !== method.recipeId) return false;
  switch (method.recipeId) {
    case 'emailpassword':
      return candidate.email === method.email;
    case 'thirdparty':
      return candidate.thirdPartyId === method.thirdPartyId && candidate.thirdPartyUserId === method.thirdPartyUserId;
    case 'passwordless':
      return (method.email !== undefined && candidate.email === method.email)
        || (method.phoneNumber !== undefined && candidate.phoneNumber === method.phoneNumber);
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
