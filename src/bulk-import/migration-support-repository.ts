import type { Queryable } from '../db/pool.js';
import type { RecipeId } from '../users/repository.js';
import { isLazyPointerSql } from '../lazy-migration/pointer-sql.js';

export interface LookupKeys {
  externalUserIds: string[];
  userIds: string[];
  emailPasswordEmails: string[];
  passwordlessEmails: string[];
  webauthnEmails: string[];
  phoneNumbers: string[];
  thirdPartyIds: string[];
  thirdPartyUserIds: string[];
}

export interface LookedUpUserRow {
  user_id: string;
  external_user_id: string | null;
  group_id: string;
  recipe_id: RecipeId;
  time_joined: number;
  email: string | null;
  phone_number: string | null;
  third_party_id: string | null;
  third_party_user_id: string | null;
  lazy_password: boolean;
}

export async function findCoreId(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ core_id: string }>('SELECT core_id FROM core_identity');
  return rows[0].core_id;
}

// Each key probes its own index (a LATERAL subquery with LIMIT 1 cannot be turned into a join that scans the
// table), so a lookup costs the same on a million users as on a thousand, analyzed or not; the literal recipe_id
// selects the partial unique index. Emails are those of password and passwordless users, the unique ones.
// Every login method of a user that one key finds is answered, with the user's (group) id, so a caller can tell
// one person with several login methods from several people.
export async function findUsersByKeys(db: Queryable, keys: LookupKeys): Promise<LookedUpUserRow[]> {
  const probe = (where: string) =>
    `CROSS JOIN LATERAL (SELECT u.user_id FROM login_method_tenants u WHERE u.tenant_id = 'public' AND ${where} LIMIT 1) AS hit`;
  const { rows } = await db.query<LookedUpUserRow>(
    `WITH found AS (
        SELECT hit.user_id FROM unnest($1::text[]) AS k(key)
          CROSS JOIN LATERAL (SELECT m.user_id FROM user_id_mappings m WHERE m.external_user_id = k.key LIMIT 1) AS hit
        UNION SELECT hit.user_id FROM unnest($2::text[]) AS k(key)
          CROSS JOIN LATERAL (SELECT u.user_id FROM users u WHERE u.user_id = k.key LIMIT 1) AS hit
        UNION SELECT hit.user_id FROM unnest($3::text[]) AS k(key) ${probe(`u.recipe_id = 'emailpassword' AND u.email = k.key`)}
        UNION SELECT hit.user_id FROM unnest($7::text[]) AS k(key) ${probe(`u.recipe_id = 'passwordless' AND u.email = k.key`)}
        UNION SELECT hit.user_id FROM unnest($8::text[]) AS k(key) ${probe(`u.recipe_id = 'webauthn' AND u.email = k.key`)}
        UNION SELECT hit.user_id FROM unnest($4::text[]) AS k(key) ${probe(`u.recipe_id = 'passwordless' AND u.phone_number = k.key`)}
        UNION SELECT hit.user_id FROM unnest($5::text[], $6::text[]) AS k(id, user_id)
          ${probe(`u.recipe_id = 'thirdparty' AND u.third_party_id = k.id AND u.third_party_user_id = k.user_id`)}),
      groups AS (
        SELECT DISTINCT mine.group_id FROM found f
          CROSS JOIN LATERAL (SELECT i.group_id FROM user_ids i WHERE i.user_id = f.user_id LIMIT 1) AS mine)
     SELECT u.user_id, m.external_user_id, g.group_id, u.recipe_id, u.time_joined, u.email, u.phone_number,
            u.third_party_id, u.third_party_user_id, coalesce(${isLazyPointerSql('u.password_hash')}, false) AS lazy_password
       FROM groups g
       CROSS JOIN LATERAL (SELECT i.user_id FROM user_ids i WHERE i.group_id = g.group_id) AS member
       CROSS JOIN LATERAL (SELECT * FROM users u WHERE u.user_id = member.user_id LIMIT 1) AS u
       LEFT JOIN LATERAL (SELECT m.external_user_id FROM user_id_mappings m WHERE m.user_id = u.user_id LIMIT 1) AS m ON true
      ORDER BY u.user_id`,
    [
      keys.externalUserIds,
      keys.userIds,
      keys.emailPasswordEmails,
      keys.phoneNumbers,
      keys.thirdPartyIds,
      keys.thirdPartyUserIds,
      keys.passwordlessEmails,
      keys.webauthnEmails,
    ],
  );
  return rows;
}
