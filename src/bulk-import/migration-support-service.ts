import { coreError } from '../errors.js';
import { findCoreId, findUsersByKeys, type LookedUpUserRow } from './migration-support-repository.js';
import { contactLookup } from '../normalise/contact.js';
import type { ServiceDependencies } from '../services.js';

// The same ceiling as one POST /bulk-import/users request, so a batch sent can be looked up in one call.
export const maxLookupKeys = 10_000;

export interface LookupInput {
  externalUserIds?: string[];
  userIds?: string[];
  emails?: string[];
  phoneNumbers?: string[];
  thirdPartyAccounts?: { thirdPartyId: string; thirdPartyUserId: string }[];
}

export interface LookedUpUser {
  userId: string;
  externalUserId?: string;
  groupId: string;
  recipeId: string;
  timeJoined: number;
  email?: string;
  phoneNumber?: string;
  thirdPartyId?: string;
  thirdPartyUserId?: string;
}

/** What the migration command asks of the core: which core this is, and which of its users are already here. */
export class MigrationSupportService {
  constructor(private readonly deps: Pick<ServiceDependencies, 'pool'>) {}

  async coreIdentity(): Promise<{ status: 'OK'; coreId: string }> {
    return { status: 'OK', coreId: await findCoreId(this.deps.pool) };
  }

  /**
   * Users holding any of the given ids or accounts (emails: of password and passwordless users, the unique ones);
   * emails and phone numbers are looked up as the core stores them now and as earlier versions stored them.
   */
  async lookupUsers(input: LookupInput): Promise<{ status: 'OK'; users: LookedUpUser[] }> {
    for (const field of ['externalUserIds', 'userIds', 'emails', 'phoneNumbers', 'thirdPartyAccounts'] as const) {
      if ((input[field]?.length ?? 0) > maxLookupKeys) throw coreError('TOO_MANY_ELEMENTS', field, maxLookupKeys);
    }
    const accounts = input.thirdPartyAccounts ?? [];
    const rows = await findUsersByKeys(this.deps.pool, {
      externalUserIds: input.externalUserIds ?? [],
      userIds: input.userIds ?? [],
      // Both spellings: the normalised one and the one an earlier version may have stored.
      emails: (input.emails ?? []).flatMap((email) => contactLookup('email', email).keys),
      phoneNumbers: (input.phoneNumbers ?? []).flatMap((phoneNumber) => contactLookup('phoneNumber', phoneNumber).keys),
      thirdPartyIds: accounts.map((account) => account.thirdPartyId),
      thirdPartyUserIds: accounts.map((account) => account.thirdPartyUserId),
    });
    return { status: 'OK', users: rows.map(toLookedUpUser) };
  }
}

function toLookedUpUser(row: LookedUpUserRow): LookedUpUser {
  return {
    userId: row.user_id,
    ...(row.external_user_id !== null && { externalUserId: row.external_user_id }),
    groupId: row.group_id,
    recipeId: row.recipe_id,
    timeJoined: row.time_joined,
    ...(row.email !== null && { email: row.email }),
    ...(row.phone_number !== null && { phoneNumber: row.phone_number }),
    ...(row.third_party_id !== null && { thirdPartyId: row.third_party_id }),
    ...(row.third_party_user_id !== null && { thirdPartyUserId: row.third_party_user_id }),
  };
}
