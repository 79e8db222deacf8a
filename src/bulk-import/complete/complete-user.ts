import type { Queryable } from '../../db/pool.js';
import { insertLoginMethodIds, setGroupsPrimary } from '../../account-linking/repository.js';
import { addLoginMethodsToTenants, insertLoginMethods, replacePasswordHashWhileLike } from '../../users/login-method-repository.js';
import { insertEmailVerifications } from '../../recipes/emailverification/repository.js';
import { lazyPointerPattern } from '../../lazy-migration/pointer-sql.js';
import { isLazyPointer } from '../../hashing/lazy-pointer.js';
import { furtherMemberships, passkeyRows, userRows } from '../import-users.js';
import type { ImportLoginMethod, ImportUser } from '../types.js';
import { describeAccount, describeAccountInfo, describeAddedMethod } from './describe.js';
import { addMissingMaterial } from './material.js';
import type { TotpSecretBox } from '../../keys/secret-box.js';
import { findWebauthnImportConflicts, insertImportedCredentials } from '../../recipes/webauthn/repository.js';
import {
  findAccountHolder,
  findLoginMethodsOfGroup,
  findReservedElsewhere,
  lockGroupOfExternalId,
  type HeldLoginMethod,
} from './repository.js';

export type CompletionAnswer =
  | { status: 'COMPLETED'; userId: string; added: string[] }
  | { status: 'UNCHANGED'; userId: string }
  | { status: 'CONFLICT'; userId?: string; reason: string }
  | { status: 'NOT_FOUND' };

/**
 * Completes one user a bulk import created, found by its old id, inside the caller's transaction (which rolls
 * back on a CONFLICT): its group is locked as account linking locks it, every login method of the user that the
 * group lacks is added and linked to it (the group becoming primary, so each email, phone number and third-party
 * account stays with one primary user, AL-2), a `$lazy$` password gets the real hash given, and second factors,
 * metadata keys and roles it has none of are added.
 */
export async function completeUser(db: Queryable, user: ImportUser, totpSecrets: TotpSecretBox): Promise<CompletionAnswer> {
  const externalUserId = user.externalUserId!;
  const group = await lockGroupOfExternalId(db, externalUserId);
  if (group === undefined) return { status: 'NOT_FOUND' };
  const userId = group.group_id;
  const held = await findLoginMethodsOfGroup(db, userId);
  const added: string[] = [];
  const fresh: ImportLoginMethod[] = [];
  for (const method of user.loginMethods) {
    const own = held.find((candidate) => sameAccount(candidate, method));
    if (own === undefined) {
      const holder = await findAccountHolder(db, method);
      if (holder !== undefined)
        return { status: 'CONFLICT', userId, reason: `${describeAccount(method)} already belongs to user ${holder}` };
      fresh.push(method);
    } else if (own.lazy_password && method.passwordHash !== undefined && !isLazyPointer(method.passwordHash)) {
      if (await replacePasswordHashWhileLike(db, own.user_id, lazyPointerPattern, method.passwordHash)) added.push('password hash');
    }
  }
  if (fresh.length > 0) {
    const reserved = await findReservedElsewhere(db, userId, accountInfosOf([...held.map(asLoginMethodKeys), ...fresh]));
    if (reserved !== undefined) {
      return {
        status: 'CONFLICT',
        userId,
        reason: `${describeAccountInfo(reserved.type, reserved.value)} already belongs to user ${reserved.holder}`,
      };
    }
    // A passkey added with a webauthn login method must not be another user's (W-4, as bulk import refuses it).
    const passkeys = fresh.flatMap((method) => method.credentials ?? []);
    if (passkeys.length > 0) {
      const [taken] = await findWebauthnImportConflicts(
        db,
        { tenantIds: [], emails: [] },
        {
          rpIds: passkeys.map((passkey) => passkey.rpId),
          credentialIds: passkeys.map((passkey) => passkey.credentialId),
        },
      );
      if (taken !== undefined) {
        const [rpId, credentialId] = taken.key.split('\n');
        return { status: 'CONFLICT', userId, reason: `passkey ${credentialId} at ${rpId} already belongs to user ${taken.holder}` };
      }
    }
    if (!group.is_primary) await setGroupsPrimary(db, [userId], true);
    await insertLoginMethodIds(
      db,
      fresh.map((method) => method.superTokensUserId),
      userId,
    );
    const hashes = fresh.map((method) => (method.recipeId === 'emailpassword' ? method.passwordHash! : null));
    await insertLoginMethods(db, userRows(fresh, hashes));
    const further = furtherMemberships(fresh);
    await addLoginMethodsToTenants(db, further.userIds, further.tenantIds);
    await insertImportedCredentials(db, fresh.flatMap(passkeyRows));
    const verified = fresh.filter((method) => method.isVerified && method.email !== undefined);
    await insertEmailVerifications(
      db,
      verified.map((method) => method.superTokensUserId),
      verified.map((method) => method.email!),
    );
    added.push(...fresh.map(describeAddedMethod));
  }
  added.push(...(await addMissingMaterial(db, user, externalUserId, totpSecrets)));
  return added.length > 0 ? { status: 'COMPLETED', userId, added } : { status: 'UNCHANGED', userId };
}

type AccountKeys = Pick<ImportLoginMethod, 'recipeId' | 'email' | 'phoneNumber' | 'thirdPartyId' | 'thirdPartyUserId'>;

function asLoginMethodKeys(row: HeldLoginMethod): AccountKeys {
  return {
    recipeId: row.recipe_id,
    email: row.email ?? undefined,
    phoneNumber: row.phone_number ?? undefined,
    thirdPartyId: row.third_party_id ?? undefined,
    thirdPartyUserId: row.third_party_user_id ?? undefined,
  };
}

// What a primary user with these login methods reserves (AL-2.1), as primary_account_infos spells it.
function accountInfosOf(methods: AccountKeys[]): { type: string; value: string }[] {
  const infos = new Map<string, { type: string; value: string }>();
  const add = (type: string, value: string | undefined) => value !== undefined && infos.set(`${type}\n${value}`, { type, value });
  for (const method of methods) add('email', method.email);
  for (const method of methods) add('phone', method.phoneNumber);
  for (const method of methods) if (method.recipeId === 'thirdparty') add('tparty', `${method.thirdPartyId}::${method.thirdPartyUserId}`);
  return [...infos.values()];
}

// The group already holds this account: same recipe and the value that makes it unique (for passwordless, its email or
// its phone number).
function sameAccount(row: HeldLoginMethod, method: ImportLoginMethod): boolean {
  if (row.recipe_id !== method.recipeId) return false;
  if (method.recipeId === 'emailpassword') return row.email === method.email;
  if (method.recipeId === 'thirdparty')
    return row.third_party_id === method.thirdPartyId && row.third_party_user_id === method.thirdPartyUserId;
  return (
    (method.email !== undefined && row.email === method.email) ||
    (method.phoneNumber !== undefined && row.phone_number === method.phoneNumber)
  );
}
