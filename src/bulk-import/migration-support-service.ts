import { coreError } from '../errors.js';
import { lazyPointerFormat } from '../hashing/lazy-pointer.js';
import { assertMaxLength } from '../normalise/length-limits.js';
import { findCoreId, findUsersByKeys, type LookedUpUserRow } from './migration-support-repository.js';
import { contactLookup } from '../normalise/contact.js';
import type { ServiceDependencies } from '../service-deps.js';
import { findMaterialOfUsers } from './complete/repository.js';
import { relyingPartiesOf } from '../recipes/webauthn/relying-parties.js';

// The same ceiling as one POST /bulk-import/users request, so a batch sent can be looked up in one call.
export const maxLookupKeys = 10_000;

export interface LookupInput {
  externalUserIds?: string[];
  userIds?: string[];
  emails?: string[];
  emailPasswordEmails?: string[];
  passwordlessEmails?: string[];
  webauthnEmails?: string[];
  phoneNumbers?: string[];
  thirdPartyAccounts?: { thirdPartyId: string; thirdPartyUserId: string }[];
  withMaterial?: boolean;
}

export interface GroupMaterial {
  groupId: string;
  totpDevices: number;
  recoveryCodes: number;
  metadataKeys: string[];
  roles: { role: string; tenantId: string }[];
  lazyPassword: boolean;
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

/**
 * What the migration command asks of the core: which core this is, whether it verifies hashes made with an export's
 * parameters, and which of its users are already here.
 */
export class MigrationSupportService {
  constructor(private readonly deps: Pick<ServiceDependencies, 'pool' | 'hasher' | 'config'>) {}

  // importsAtOnce: a batch sent with importNow=true is imported before the answer, so nothing of it waits in the queue.
  // webauthnRpIds: the relying-party ids passkeys can be imported for (null: webauthn_rp_ids is unset, so none), so
  // the command can leave a passkey for another RP ID behind instead of losing the user with it.
  async coreIdentity(): Promise<{ status: 'OK'; coreId: string; importsAtOnce: true; webauthnRpIds: string[] | null }> {
    const rpIds = relyingPartiesOf(this.deps.config).rpIds;
    return {
      status: 'OK',
      coreId: await findCoreId(this.deps.pool),
      importsAtOnce: true,
      webauthnRpIds: rpIds === undefined ? null : [...rpIds],
    };
  }

  /**
   * Whether `password` matches `passwordHash` read as an import reads it and verified as a sign-in verifies it, with
   * the same limits; nothing is stored. An import would refuse what this refuses, with the same message.
   */
  async checkPasswordHash(input: {
    passwordHash: string;
    hashingAlgorithm?: string;
    password?: string;
  }): Promise<{ status: 'OK'; verified?: boolean }> {
    assertMaxLength('passwordHash', input.passwordHash);
    const check = this.deps.hasher.checkImport(input.passwordHash, input.hashingAlgorithm);
    if (check.status === 'SIGNER_KEY_MISSING') throw coreError('SIGNER_KEY_MISSING');
    if (check.status === 'INVALID') throw coreError('PASSWORD_HASH_INVALID', check.message);
    if (check.algorithm === lazyPointerFormat.id)
      throw coreError('PASSWORD_HASH_INVALID', lazyPointerFormat.invalidMessage, 'a pointer to an old provider holds no hash to check');
    if (input.password === undefined) return { status: 'OK' };
    const outcome = await this.deps.hasher.verify(input.password, check.hash);
    if (outcome === 'SIGNER_KEY_MISSING') throw coreError('SIGNER_KEY_MISSING');
    return { status: 'OK', verified: outcome === 'MATCH' };
  }

  /**
   * Users holding any of the given ids or accounts (emails: of password and passwordless users, the unique ones);
   * emails and phone numbers are looked up as the core stores them now and as earlier versions stored them.
   */
  async lookupUsers(input: LookupInput): Promise<{ status: 'OK'; users: LookedUpUser[]; material?: GroupMaterial[] }> {
    const fields = [
      'externalUserIds',
      'userIds',
      'emails',
      'emailPasswordEmails',
      'passwordlessEmails',
      'webauthnEmails',
      'phoneNumbers',
      'thirdPartyAccounts',
    ] as const;
    for (const field of fields) {
      if ((input[field]?.length ?? 0) > maxLookupKeys) throw coreError('TOO_MANY_ELEMENTS', field, maxLookupKeys);
    }
    const accounts = input.thirdPartyAccounts ?? [];
    const rows = await findUsersByKeys(this.deps.pool, {
      externalUserIds: input.externalUserIds ?? [],
      userIds: input.userIds ?? [],
      // Both spellings: the normalised one and the one an earlier version may have stored.
      emailPasswordEmails: emailKeys([...(input.emails ?? []), ...(input.emailPasswordEmails ?? [])]),
      passwordlessEmails: emailKeys([...(input.emails ?? []), ...(input.passwordlessEmails ?? [])]),
      webauthnEmails: emailKeys(input.webauthnEmails ?? []),
      phoneNumbers: (input.phoneNumbers ?? []).flatMap((phoneNumber) => contactLookup('phoneNumber', phoneNumber).keys),
      thirdPartyIds: accounts.map((account) => account.thirdPartyId),
      thirdPartyUserIds: accounts.map((account) => account.thirdPartyUserId),
    });
    const users = rows.map(toLookedUpUser);
    if (input.withMaterial !== true) return { status: 'OK', users };
    return { status: 'OK', users, material: await this.materialOf(rows) };
  }

  // Keyed as the app knows each user (its old id, else its id), as metadata, roles and second factors are.
  private async materialOf(rows: LookedUpUserRow[]): Promise<GroupMaterial[]> {
    const groups = new Map<string, { appId: string; lazyPassword: boolean }>();
    for (const row of rows) {
      const group = groups.get(row.group_id) ?? { appId: row.group_id, lazyPassword: false };
      if (row.user_id === row.group_id && row.external_user_id !== null) group.appId = row.external_user_id;
      group.lazyPassword ||= row.lazy_password;
      groups.set(row.group_id, group);
    }
    const material = await findMaterialOfUsers(
      this.deps.pool,
      [...groups.values()].map((group) => group.appId),
    );
    return [...groups].map(([groupId, { appId, lazyPassword }]) => {
      const found = material.get(appId)!;
      return {
        groupId,
        totpDevices: found.totp_devices,
        recoveryCodes: found.recovery_codes,
        metadataKeys: found.metadata_keys,
        roles: found.roles,
        lazyPassword,
      };
    });
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

function emailKeys(emails: string[]): string[] {
  return emails.flatMap((email) => contactLookup('email', email).keys);
}
