import type { Queryable } from '../db/pool.js';
import type { RecipeId } from '../users/repository.js';

export interface LookupKeys {
  externalUserIds: string[];
  userIds: string[];
  emails: string[];
  phoneNumbers: string[];
  thirdPartyIds: string[];
  thirdPartyUserIds: string[];
}

export interface LookedUpUserRow {
  user_id: string;
  external_user_id: string | null;
  recipe_id: RecipeId;
  time_joined: number;
  email: string | null;
  phone_number: string | null;
  third_party_id: string | null;
  third_party_user_id: string | null;
}

export async function findCoreId(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ core_id: string }>('SELECT core_id FROM core_identity');
  return rows[0].core_id;
}

// One branch per key kind, each answered by its own index, so the plan stays index-driven on tables that
// were never analyzed (a bulk import fills them faster than autovacuum looks).
export async function findUsersByKeys(db: Queryable, keys: LookupKeys): Promise<LookedUpUserRow[]> {
  const { rows } = await db.query<LookedUpUserRow>(
    `SELECT u.user_id, m.external_user_id, u.recipe_id, u.time_joined, u.email, u.phone_number,
            u.third_party_id, u.third_party_user_id
       FROM users u LEFT JOIN user_id_mappings m ON m.user_id = u.user_id
      WHERE u.user_id IN (
        SELECT user_id FROM user_id_mappings WHERE external_user_id = ANY($1::text[])
        UNION SELECT unnest($2::text[])
        UNION SELECT user_id FROM users WHERE tenant_id = 'public' AND email = ANY($3::text[])
        UNION SELECT user_id FROM users WHERE tenant_id = 'public' AND recipe_id = 'passwordless' AND phone_number = ANY($4::text[])
        UNION SELECT t.user_id FROM unnest($5::text[], $6::text[]) AS k(third_party_id, third_party_user_id)
          JOIN users t ON t.tenant_id = 'public' AND t.recipe_id = 'thirdparty'
           AND t.third_party_id = k.third_party_id AND t.third_party_user_id = k.third_party_user_id)
      ORDER BY u.user_id`,
    [keys.externalUserIds, keys.userIds, keys.emails, keys.phoneNumbers, keys.thirdPartyIds, keys.thirdPartyUserIds],
  );
  return rows;
}
