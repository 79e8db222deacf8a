import bcrypt from 'bcrypt';
import type { TestDatabase } from '../helper.js';

// Real bcrypt hashes (cheap cost) so a later sign-in round trip can use the same users.
export const bcryptPassword = 'correct horse battery staple';
export const bcryptHash = bcrypt.hashSync(bcryptPassword, 4);

export function emailPasswordUser(n: number, extra: Record<string, unknown> = {}, method: Record<string, unknown> = {}) {
  return {
    externalUserId: `ext-ep-${n}`,
    ...extra,
    loginMethods: [
      { recipeId: 'emailpassword', email: `User${n}@Example.com`, passwordHash: bcryptHash, hashingAlgorithm: 'bcrypt', ...method },
    ],
  };
}

export function thirdPartyUser(n: number, extra: Record<string, unknown> = {}, method: Record<string, unknown> = {}) {
  return {
    ...extra,
    loginMethods: [{ recipeId: 'thirdparty', email: `tp${n}@example.com`, thirdPartyId: 'google', thirdPartyUserId: `g-${n}`, ...method }],
  };
}

export function passwordlessUser(n: number, extra: Record<string, unknown> = {}, method: Record<string, unknown> = {}) {
  return { ...extra, loginMethods: [{ recipeId: 'passwordless', phoneNumber: `+1 415 555 ${String(1000 + n).slice(-4)}`, ...method }] };
}

export async function queueRows(db: TestDatabase): Promise<{ id: string; status: string; error_message: string | null }[]> {
  const { rows } = await db.pool.query('SELECT id, status, error_message FROM bulk_import_users ORDER BY created_at, id');
  return rows;
}

// Metadata and roles are read under the user's external id when it has one (contract M-2.1).
export async function importedUsers(db: TestDatabase) {
  const { rows } = await db.pool.query(
    `SELECT u.user_id, u.recipe_id, u.time_joined, u.email, u.phone_number, u.third_party_id, u.third_party_user_id, u.password_hash,
       m.external_user_id, md.metadata,
       (SELECT array_agg(ev.email) FROM email_verifications ev WHERE ev.user_id = u.user_id) AS verified,
       (SELECT array_agg(ur.role ORDER BY ur.role) FROM user_roles ur WHERE ur.user_id = COALESCE(m.external_user_id, u.user_id)) AS roles
     FROM users u LEFT JOIN user_id_mappings m ON m.user_id = u.user_id LEFT JOIN user_metadata md ON md.user_id = COALESCE(m.external_user_id, u.user_id)
     ORDER BY u.email NULLS LAST, u.phone_number`,
  );
  return rows;
}
