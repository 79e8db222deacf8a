import type { Queryable } from '../db/pool.js';
import {
  groupUsers,
  groupedUserColumns,
  groupedUserFrom,
  type GroupedRow,
  type LoginMethodRow,
  type StoredUser,
} from '../users/repository.js';
import { isLazyPointerSql, lazyLegacyUserIdSql, lazySourceSql } from '../lazy-migration/pointer-sql.js';

// The login method, in this tenant, of the imported user the source's old id names: the one whose mapped external
// id is $1 (the source's prefix and the old id), else a pending user whose lazy pointer names the source's lazy
// source ($8) and carries the old id ($3, in base64url as the pointer holds it).
const loginMethodByOldId = `(SELECT u.user_id FROM user_id_mappings m JOIN users u ON u.user_id = m.user_id
     WHERE m.external_user_id = $1 AND u.tenant_id = $2)
   UNION ALL
   (SELECT u.user_id FROM users u
     WHERE ${isLazyPointerSql('u.password_hash')} AND ${lazyLegacyUserIdSql('u.password_hash')} = $3
       AND ${lazySourceSql('u.password_hash')} = $8 AND u.tenant_id = $2
     ORDER BY u.user_id LIMIT 1)
   LIMIT 1`;

export interface Exchange {
  tenantId: string;
  oldId: string;
  externalIdPrefix: string;
  lazySource: string;
  digest: Buffer;
  source: string;
  at: number;
  expiresAt: number;
}

export type SpendResult =
  { status: 'UNKNOWN_USER' } | { status: 'ALREADY_USED' } | { status: 'SPENT'; user: StoredUser; loginMethod: LoginMethodRow };

/**
 * Finds the imported user a token names and records the token as spent for that user, in one statement that also
 * reads the whole user (every login method of its group): a token spent before (by any instance) is not recorded
 * again, and a token of nobody imported is not spent at all.
 */
export async function spendToken(db: Queryable, exchange: Exchange): Promise<SpendResult> {
  // Named: each pooled connection plans this statement once, not on every exchange.
  const { rows } = await db.query<GroupedRow & { named: boolean; spent: boolean }>({
    name: 'session-bridge-spend',
    text: `WITH target AS (${loginMethodByOldId}),
     spent AS (
       INSERT INTO session_bridge_exchanges (token_digest, source, user_id, exchanged_at, expires_at)
       SELECT $4, $5, user_id, $6, $7 FROM target
       ON CONFLICT (token_digest) DO NOTHING RETURNING user_id)
     SELECT ${groupedUserColumns}, u.user_id = t.user_id AS named, EXISTS (SELECT 1 FROM spent) AS spent
     FROM target t JOIN user_ids ti ON ti.user_id = t.user_id JOIN (${groupedUserFrom}) ON g.group_id = ti.group_id`,
    values: [
      exchange.externalIdPrefix + exchange.oldId,
      exchange.tenantId,
      Buffer.from(exchange.oldId, 'utf8').toString('base64url'),
      exchange.digest,
      exchange.source,
      exchange.at,
      exchange.expiresAt,
      exchange.lazySource,
    ],
  });
  if (rows.length === 0) return { status: 'UNKNOWN_USER' };
  if (!rows[0].spent) return { status: 'ALREADY_USED' };
  const namedId = rows.find((row) => row.named)!.user_id;
  const [user] = groupUsers(rows.map(({ named: _named, spent: _spent, ...row }) => row)).values();
  return { status: 'SPENT', user, loginMethod: user.login_methods.find((method) => method.user_id === namedId)! };
}

export interface RefusalCount {
  source: string;
  day: string;
  cause: string;
  count: number;
}

/** Adds a batch of counts in one statement. */
export async function addRefusals(db: Queryable, counts: readonly RefusalCount[]): Promise<void> {
  if (counts.length === 0) return;
  await db.query(
    `INSERT INTO session_bridge_refusals (source, day, cause, count)
     SELECT * FROM unnest($1::text[], $2::date[], $3::text[], $4::bigint[])
     ON CONFLICT (source, day, cause) DO UPDATE SET count = session_bridge_refusals.count + EXCLUDED.count`,
    [counts.map((c) => c.source), counts.map((c) => c.day), counts.map((c) => c.cause), counts.map((c) => c.count)],
  );
}

export interface DailyProgress {
  source: string;
  day: string;
  bridged: number;
  users: number;
  refused: Record<string, number>;
}

/** Exchanges and refusals per source and UTC day since `since` (milliseconds), oldest day first. */
export async function progressPerDay(db: Queryable, since: number): Promise<DailyProgress[]> {
  const sinceDay = new Date(since).toISOString().slice(0, 10);
  const [exchanged, refused] = await Promise.all([
    db.query<{ source: string; day: string; bridged: string; users: string }>(
      `SELECT source, to_char(to_timestamp(exchanged_at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
              count(*) AS bridged, count(DISTINCT user_id) AS users
       FROM session_bridge_exchanges WHERE exchanged_at >= $1 GROUP BY 1, 2`,
      [Date.parse(sinceDay)],
    ),
    db.query<{ source: string; day: string; cause: string; count: string }>(
      `SELECT source, to_char(day, 'YYYY-MM-DD') AS day, cause, count FROM session_bridge_refusals WHERE day >= $1::date`,
      [sinceDay],
    ),
  ]);
  const days = new Map<string, DailyProgress>();
  const entry = (source: string, day: string) => {
    const key = `${source}\u0000${day}`;
    let found = days.get(key);
    if (!found) days.set(key, (found = { source, day, bridged: 0, users: 0, refused: {} }));
    return found;
  };
  for (const row of exchanged.rows) Object.assign(entry(row.source, row.day), { bridged: Number(row.bridged), users: Number(row.users) });
  for (const row of refused.rows) entry(row.source, row.day).refused[row.cause] = Number(row.count);
  return [...days.values()].sort((a, b) => (a.source === b.source ? a.day.localeCompare(b.day) : a.source.localeCompare(b.source)));
}
