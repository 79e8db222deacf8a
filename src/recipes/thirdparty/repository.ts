import type { Queryable } from '../../db/pool.js';
import { maxUsersPerLookup } from '../../users/listing-repository.js';
import { inTenant, userColumns, userFrom, type LoginMethodRow } from '../../users/repository.js';

export interface NewThirdPartyUser {
  userId: string;
  tenantId: string;
  thirdPartyId: string;
  thirdPartyUserId: string;
  email: string;
  timeJoined: number;
}

export async function lockThirdPartyUser(
  db: Queryable,
  tenantId: string,
  thirdPartyId: string,
  thirdPartyUserId: string,
): Promise<{ user_id: string; email: string } | undefined> {
  const { rows } = await db.query<{ user_id: string; email: string }>(
    `SELECT u.user_id, u.email FROM users u ${inTenant('thirdparty')}
        AND lt.third_party_id = $2 AND lt.third_party_user_id = $3
     FOR UPDATE OF u`,
    [tenantId, thirdPartyId, thirdPartyUserId],
  );
  return rows[0];
}

export async function findThirdPartyUser(
  db: Queryable,
  tenantId: string,
  thirdPartyId: string,
  thirdPartyUserId: string,
): Promise<LoginMethodRow | undefined> {
  const { rows } = await db.query<LoginMethodRow>(
    `SELECT ${userColumns} FROM ${userFrom} ${inTenant('thirdparty')} AND lt.third_party_id = $2 AND lt.third_party_user_id = $3`,
    [tenantId, thirdPartyId, thirdPartyUserId],
  );
  return rows[0];
}

export async function findThirdPartyUsersByEmail(db: Queryable, tenantId: string, email: string): Promise<LoginMethodRow[]> {
  const { rows } = await db.query<LoginMethodRow>(
    `SELECT ${userColumns} FROM ${userFrom} ${inTenant('thirdparty')} AND lt.email = $2
     ORDER BY u.time_joined ASC, u.user_id DESC LIMIT $3`,
    [tenantId, email, maxUsersPerLookup],
  );
  return rows;
}
