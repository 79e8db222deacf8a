import type { Queryable } from '../db/pool.js';

/**
 * The login method, in this tenant, of the imported user the old provider calls `oldId`: the one whose mapped
 * external id it is, else a pending user whose pointer carries it. Internal id, or undefined.
 */
export async function findLoginMethodByOldId(db: Queryable, tenantId: string, oldId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ user_id: string }>(
    `(SELECT u.user_id FROM user_id_mappings m JOIN users u ON u.user_id = m.user_id
       WHERE m.external_user_id = $1 AND u.tenant_id = $2)
     UNION ALL
     (SELECT u.user_id FROM users u
       WHERE u.password_hash LIKE '$lazy$%' AND split_part(u.password_hash, '$', 5) = $3 AND u.tenant_id = $2
       ORDER BY u.user_id LIMIT 1)
     LIMIT 1`,
    [oldId, tenantId, Buffer.from(oldId, 'utf8').toString('base64url')],
  );
  return rows[0]?.user_id;
}

export interface Exchange {
  digest: Buffer;
  source: string;
  userId: string;
  at: number;
  expiresAt: number;
}

/** Records a token as spent; false when it was spent before (by any instance). */
export async function insertExchange(db: Queryable, exchange: Exchange): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO session_bridge_exchanges (token_digest, source, user_id, exchanged_at, expires_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (token_digest) DO NOTHING`,
    [exchange.digest, exchange.source, exchange.userId, exchange.at, exchange.expiresAt],
  );
  return rowCount === 1;
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
