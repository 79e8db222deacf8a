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

// One branch per key kind, each key probing its own index through a LATERAL subquery (LIMIT 1 where the key is
// unique, OFFSET 0 where it is not), then each user found by its primary key. A bulk import fills the tables
// faster than autovacuum looks, and without statistics `email = ANY($3)` over thousands of keys lets the planner
// scan the whole tenant's index and filter it, once per lookup: quadratic over a migration's final tally.
export async function findUsersByKeys(db: Queryable, keys: LookupKeys): Promise<LookedUpUserRow[]> {
  const { rows } = await db.query<LookedUpUserRow>({
    text: `WITH found (user_id) AS (
        SELECT hit.user_id FROM unnest($1::text[]) AS k(key)
          CROSS JOIN LATERAL (SELECT m.user_id FROM user_id_mappings m WHERE m.external_user_id = k.key LIMIT 1) AS hit
        UNION SELECT unnest($2::text[])
        UNION SELECT hit.user_id FROM unnest($3::text[]) AS k(key)
          CROSS JOIN LATERAL (SELECT e.user_id FROM users e WHERE e.tenant_id = 'public' AND e.email = k.key OFFSET 0) AS hit
        UNION SELECT hit.user_id FROM unnest($4::text[]) AS k(key)
          CROSS JOIN LATERAL (SELECT p.user_id FROM users p
            WHERE p.tenant_id = 'public' AND p.recipe_id = 'passwordless' AND p.phone_number = k.key LIMIT 1) AS hit
        UNION SELECT hit.user_id FROM unnest($5::text[], $6::text[]) AS k(third_party_id, third_party_user_id)
          CROSS JOIN LATERAL (SELECT t.user_id FROM users t WHERE t.tenant_id = 'public' AND t.recipe_id = 'thirdparty'
            AND t.third_party_id = k.third_party_id AND t.third_party_user_id = k.third_party_user_id LIMIT 1) AS hit)
      SELECT u.user_id, m.external_user_id, u.recipe_id, u.time_joined, u.email, u.phone_number, u.third_party_id, u.third_party_user_id
        FROM found f
        CROSS JOIN LATERAL (SELECT * FROM users x WHERE x.user_id = f.user_id LIMIT 1) AS u
        LEFT JOIN LATERAL (SELECT y.external_user_id FROM user_id_mappings y WHERE y.user_id = u.user_id LIMIT 1) AS m ON true
       ORDER BY u.user_id`,
    values: [keys.externalUserIds, keys.userIds, keys.emails, keys.phoneNumbers, keys.thirdPartyIds, keys.thirdPartyUserIds],
  });
  return rows;
}
