import type { Queryable } from '../../db/pool.js';
import { insertUserRoles } from '../../recipes/userroles/repository.js';
import { lockTotpUser, upsertDevices } from '../../recipes/totp/repository.js';
import type { TotpSecretBox } from '../../keys/secret-box.js';
import { insertRecoveryCodes } from '../../recipes/totp/recovery-codes-repository.js';
import { mergeMetadataOfUsers } from '../../recipes/usermetadata/repository.js';
import type { ImportUser } from '../types.js';
import { counted } from './describe.js';
import { findMaterialOfUsers } from './repository.js';

/**
 * Adds what the user holds nothing of yet, under the id the app knows it by: TOTP devices and recovery codes only
 * when it has none (a user who enrolled since the cutover keeps exactly what it enrolled), metadata keys it does
 * not have (a value the app may have changed is never overwritten), the role assignments it lacks. Answers what
 * was added, in plain words.
 */
export async function addMissingMaterial(
  db: Queryable,
  user: ImportUser,
  appUserId: string,
  totpSecrets: TotpSecretBox,
): Promise<string[]> {
  const added: string[] = [];
  const hasDevices = (user.totpDevices?.length ?? 0) > 0;
  if (hasDevices || (user.recoveryCodes?.length ?? 0) > 0) await lockTotpUser(db, appUserId);
  const material = (await findMaterialOfUsers(db, [appUserId])).get(appUserId)!;
  // Informative only (never compared), as at import.
  const now = Date.now();
  if (hasDevices && material.totp_devices === 0) {
    const devices = user.totpDevices!;
    await upsertDevices(
      db,
      totpSecrets,
      devices.map((device) => ({
        userId: appUserId,
        ...device,
        verified: true,
        createdAt: now,
        lastUsedTimeStep: device.lastUsedTimeStep ?? null,
      })),
    );
    added.push(counted(devices.length, 'TOTP device'));
  }
  if ((user.recoveryCodes?.length ?? 0) > 0 && material.recovery_codes === 0) {
    const codes = user.recoveryCodes!;
    await insertRecoveryCodes(
      db,
      codes.map((code) => ({
        userId: appUserId,
        hashingAlgorithm: code.hashingAlgorithm,
        hash: code.hash,
        salt: code.salt ?? null,
        usedAt: code.usedAt ?? null,
        createdAt: now,
      })),
    );
    added.push(counted(codes.length, 'recovery code'));
  }
  const held = new Set(material.metadata_keys);
  // A null value removes a key when metadata is merged: it adds nothing.
  const missingKeys = Object.entries(user.userMetadata ?? {}).filter(([key, value]) => !held.has(key) && value !== null);
  if (missingKeys.length > 0) {
    await mergeMetadataOfUsers(db, [appUserId], [JSON.stringify(Object.fromEntries(missingKeys))]);
    added.push(`metadata ${missingKeys.length === 1 ? 'key' : 'keys'} ${missingKeys.map(([key]) => key).join(', ')}`);
  }
  const assigned = new Set(material.roles.map(({ role, tenantId }) => `${tenantId}\u0000${role}`));
  const roles = { tenants: [] as string[], roles: [] as string[] };
  for (const { role, tenantIds } of user.userRoles ?? []) {
    for (const tenantId of tenantIds) {
      if (assigned.has(`${tenantId}\u0000${role}`)) continue;
      assigned.add(`${tenantId}\u0000${role}`);
      roles.tenants.push(tenantId);
      roles.roles.push(role);
    }
  }
  if (roles.roles.length > 0) {
    await insertUserRoles(
      db,
      roles.roles.map(() => appUserId),
      roles.tenants,
      roles.roles,
    );
    added.push(`${roles.roles.length === 1 ? 'role' : 'roles'} ${[...new Set(roles.roles)].join(', ')}`);
  }
  return added;
}
