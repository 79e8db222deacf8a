import { beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/pool.js';
import { findUsersPage, type PageQuery } from '../../src/users/listing-repository.js';
import { call, useTestApp } from '../helper.js';

// 100,000 users by default (about 10 s on the 2-core CI box); USERS_PAGINATION_SCALE overrides it.
const userCount = Number(process.env.USERS_PAGINATION_SCALE ?? 100_000);
const pageSize = 500;

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

function flatten(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(flatten)];
}

describe(`GET /users over ${userCount} users`, () => {
  const t = useTestApp();
  beforeAll(async () => {
    // Three users per millisecond value, so every page boundary is likely to fall inside a tie.
    await t.db.pool.query(
      `INSERT INTO users (user_id, tenant_id, recipe_id, time_joined, email, password_hash)
       SELECT md5(i::text)::uuid::text, 'public', 'emailpassword', 1700000000000 + (i / 3), 'user' || i || '@example.com', 'x'
       FROM generate_series(1, $1) AS i`,
      [userCount],
    );
    await t.db.pool.query(
      "INSERT INTO user_id_mappings (user_id, external_user_id) SELECT user_id, 'old-' || user_id FROM users WHERE time_joined % 10 = 0",
    );
    await t.db.pool.query('INSERT INTO email_verifications (user_id, email) SELECT user_id, email FROM users WHERE time_joined % 2 = 0');
    await t.db.pool.query(
      'ANALYZE users; ANALYZE login_method_tenants; ANALYZE user_groups; ANALYZE user_ids; ANALYZE user_id_mappings; ANALYZE email_verifications',
    );
  }, 120_000);

  // Runs the repository's own SQL under EXPLAIN by prefixing whatever it sends to the real database.
  async function planOf(query: PageQuery): Promise<PlanNode[]> {
    let plan: PlanNode | undefined;
    const explaining: Queryable = {
      query: (async (text: string, values: unknown[]) => {
        const result = await t.db.pool.query(`EXPLAIN (FORMAT JSON) ${text}`, values);
        plan = (result.rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0].Plan;
        return { rows: [] };
      }) as Queryable['query'],
    };
    await findUsersPage(explaining, query);
    return flatten(plan!);
  }

  it.each([
    ['ASC', 'user_groups__time_joined_asc_idx'],
    ['DESC', 'user_groups__time_joined_desc_idx'],
  ] as const)('reads a %s page with an index scan bounded by the cursor, no sort and no full scan', async (order, index) => {
    const { rows } = await t.db.pool.query<{ user_id: string; time_joined: number }>(
      'SELECT user_id, time_joined FROM users ORDER BY user_id LIMIT 1',
    );
    const cursor = { id: rows[0].user_id, time: String(rows[0].time_joined) };
    const nodes = await planOf({ tenantId: 'public', recipeIds: undefined, order, fetch: pageSize + 1, cursor, search: undefined });
    const scan = nodes.find((node) => node['Index Name'] === index);
    // An index-only scan where the visibility map allows it (the tenant is read from login_method_tenants).
    expect(['Index Scan', 'Index Only Scan']).toContain(scan?.['Node Type']);
    expect(scan?.['Index Cond']).toContain('time_joined');
    expect(nodes.map((node) => node['Node Type'])).not.toContain('Sort');
    // The page of users is read off the index alone; their login methods are then fetched by group id.
    expect(nodes.map((node) => node['Node Type'])).not.toContain('Seq Scan');
  });

  it.each(['DESC', 'ASC'])(
    `pages through every user %s with limit ${pageSize}, each exactly once and in order`,
    async (order) => {
      const seen = new Set<string>();
      const times: number[] = [];
      let previous: number | undefined;
      let next: string | undefined;
      const started = performance.now();
      do {
        const pageStarted = performance.now();
        const reply = await call(t.app, 'GET', '/users', {
          query: { limit: String(pageSize), timeJoinedOrder: order, ...(next && { paginationToken: next }) },
        });
        times.push(performance.now() - pageStarted);
        expect(reply.statusCode).toBe(200);
        for (const user of reply.json.users as { id: string; timeJoined: number }[]) {
          seen.add(user.id);
          if (previous !== undefined) expect(order === 'ASC' ? user.timeJoined >= previous : user.timeJoined <= previous).toBe(true);
          previous = user.timeJoined;
        }
        next = reply.json.nextPaginationToken;
      } while (next);
      const total = performance.now() - started;
      expect(seen.size).toBe(userCount);
      expect(times.length).toBe(Math.ceil(userCount / pageSize));
      const sorted = [...times].sort((a, b) => a - b);
      console.log(
        `GET /users ${order}: ${userCount} users, ${times.length} pages of ${pageSize} in ${total.toFixed(0)} ms; ` +
          `per page mean ${(total / times.length).toFixed(1)} ms, median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} ms, ` +
          `p95 ${sorted[Math.floor(sorted.length * 0.95)].toFixed(1)} ms, first ${times[0].toFixed(1)} ms, last ${times[times.length - 1].toFixed(1)} ms`,
      );
    },
    120_000,
  );
});
