import type { Queryable } from '../../db/pool.js';
import type { RecipeId } from '../../users/repository.js';
import { isLazyPointerSql } from '../../lazy-migration/pointer-sql.js';

// The SQL of completing users a bulk import created: what one user (a group and the id the app knows it by) holds.

export interface GroupByOldId {
  group_id: string;
  is_primary: boolean;
}

/** The group the user with this old id belongs to, its row locked until the transaction ends. */
export async function lockGroupOfExternalId(db: Queryable, externalUserId: string): Promise<GroupByOldId | undefined> {
  const { rows } = await db.query<GroupByOldId>(
    `SELECT g.group_id, g.is_primary FROM user_id_mappings m
       JOIN user_ids i ON i.user_id = m.user_id JOIN user_groups g ON g.group_id = i.group_id
      WHERE m.external_user_id = $1 FOR UPDATE OF g`,
    [externalUserId],
  );
  return rows[0];
}

export interface HeldLoginMethod {
  user_id: string;
  recipe_id: RecipeId;
  email: string | null;
  phone_number: string | null;
  third_party_id: string | null;
  third_party_user_id: string | null;
  lazy_password: boolean;
}

export async function findLoginMethodsOfGroup(db: Queryable, groupId: string): Promise<HeldLoginMethod[]> {
  const { rows } = await db.query<HeldLoginMethod>(
    `SELECT u.user_id, u.recipe_id, u.email, u.phone_number, u.third_party_id, u.third_party_user_id,
            coalesce(${isLazyPointerSql('u.password_hash')}, false) AS lazy_password
       FROM user_ids i JOIN users u ON u.user_id = i.user_id WHERE i.group_id = $1 ORDER BY u.time_joined, u.user_id`,
    [groupId],
  );
  return rows;
}

type AccountOfMethod = { recipeId: RecipeId; email?: string; phoneNumber?: string; thirdPartyId?: string; thirdPartyUserId?: string };

// Each recipe's condition names the recipe, so that its unique index (partial, on the recipe) serves the probe.
const holdsAccount: Record<RecipeId, (method: AccountOfMethod) => { sql: string; values: (string | null)[] }> = {
  emailpassword: (method) => ({ sql: "u.recipe_id = 'emailpassword' AND u.email = $1", values: [method.email ?? null] }),
  passwordless: (method) => ({
    sql: "u.recipe_id = 'passwordless' AND (u.email = $1 OR u.phone_number = $2)",
    values: [method.email ?? null, method.phoneNumber ?? null],
  }),
  webauthn: (method) => ({ sql: "u.recipe_id = 'webauthn' AND u.email = $1", values: [method.email ?? null] }),
  thirdparty: (method) => ({
    sql: "u.recipe_id = 'thirdparty' AND u.third_party_id = $1 AND u.third_party_user_id = $2",
    values: [method.thirdPartyId ?? null, method.thirdPartyUserId ?? null],
  }),
};

/** The old id, else the group id, of the user that holds this login method's account; undefined when nobody does. */
export async function findAccountHolder(db: Queryable, method: AccountOfMethod): Promise<string | undefined> {
  const { sql, values } = holdsAccount[method.recipeId](method);
  const { rows } = await db.query<{ holder: string }>(
    `SELECT coalesce(m.external_user_id, i.group_id) AS holder FROM login_method_tenants u
       JOIN user_ids i ON i.user_id = u.user_id
       LEFT JOIN user_id_mappings m ON m.user_id = i.group_id
      WHERE u.tenant_id = 'public' AND ${sql}
      LIMIT 1`,
    values,
  );
  return rows[0]?.holder;
}

/** The first of these account infos that a primary user other than `groupId` reserves, with its old id (else its id). */
export async function findReservedElsewhere(
  db: Queryable,
  groupId: string,
  infos: { type: string; value: string }[],
): Promise<{ type: string; value: string; holder: string } | undefined> {
  if (infos.length === 0) return undefined;
  const { rows } = await db.query<{ type: string; value: string; holder: string }>(
    `SELECT k.type, k.value, coalesce(m.external_user_id, r.group_id) AS holder
       FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS k(type, value, ord)
       JOIN primary_account_infos r ON r.tenant_id = 'public' AND r.info_type = k.type AND r.info_value = k.value
       LEFT JOIN user_id_mappings m ON m.user_id = r.group_id
      WHERE r.group_id <> $1 ORDER BY k.ord LIMIT 1`,
    [groupId, infos.map((info) => info.type), infos.map((info) => info.value)],
  );
  return rows[0];
}

export interface UserMaterial {
  totp_devices: number;
  recovery_codes: number;
  metadata_keys: string[];
  roles: { role: string; tenantId: string }[];
}

/** What the app-facing id holds beyond login methods: counts of second factors, top-level metadata keys, roles. */
export async function findMaterialOfUsers(db: Queryable, userIds: string[]): Promise<Map<string, UserMaterial>> {
  if (userIds.length === 0) return new Map();
  const { rows } = await db.query<UserMaterial & { user_id: string }>(
    `SELECT k.user_id,
            (SELECT count(*)::int FROM totp_devices d WHERE d.user_id = k.user_id) AS totp_devices,
            (SELECT count(*)::int FROM recovery_codes c WHERE c.user_id = k.user_id) AS recovery_codes,
            coalesce((SELECT array_agg(j.key ORDER BY j.key) FROM user_metadata um
                       CROSS JOIN LATERAL json_object_keys(um.metadata) AS j(key) WHERE um.user_id = k.user_id), '{}') AS metadata_keys,
            coalesce((SELECT json_agg(json_build_object('role', r.role, 'tenantId', r.tenant_id) ORDER BY r.role, r.tenant_id)
                        FROM user_roles r WHERE r.user_id = k.user_id), '[]') AS roles
       FROM unnest($1::text[]) AS k(user_id)`,
    [[...new Set(userIds)]],
  );
  return new Map(rows.map(({ user_id, ...material }) => [user_id, material]));
}
