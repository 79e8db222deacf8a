import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, createTestDatabase, type TestApp, type TestDatabase } from '../helper.js';
import { bcryptHash } from './fixtures.js';
import { useKeyDrivenPlans } from '../../src/bulk-import/repository.js';
import { validateBatch } from '../../src/bulk-import/enqueue.js';
import { importUsers } from '../../src/bulk-import/import-users.js';

// A batch of linked users (AL-11) runs statements nobody sends: the users insert trigger and account_groups_refresh
// of migration 0011 (groups, time_joined, reservations). auto_explain shows their plans, made in the batch
// transaction on tables the planner has no statistics for; each must reach its rows through an index.
const existingUsers = 40_000;
const batchSize = 2_000;

interface PlanNode {
  'Node Type': string;
  'Parent Relationship'?: string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

// Scans that read a whole table or a whole index, and nested loops that read a whole set for each outer row (two
// sets without an index, such as the trigger's transition table and a CTE: quadratic in the rows of a statement).
function wholeScans(node: PlanNode, found: string[] = []): string[] {
  const type = node['Node Type'];
  const inner = node.Plans?.find((child) => child['Parent Relationship'] === 'Inner');
  if (type === 'Nested Loop' && inner && ['Named Tuplestore Scan', 'CTE Scan', 'Materialize'].includes(inner['Node Type'])) {
    found.push(`Nested Loop over ${inner['Node Type']}`);
  }
  if (type === 'Seq Scan' || type.startsWith('Bitmap')) found.push(`${type} on ${node['Relation Name'] ?? node['Index Name']}`);
  if ((type === 'Index Scan' || type === 'Index Only Scan') && node['Index Cond'] === undefined) {
    found.push(`${type} on ${node['Relation Name']} using ${node['Index Name']} without a condition`);
  }
  for (const child of node.Plans ?? []) wholeScans(child, found);
  return found;
}

function linkedUsers(count: number) {
  return Array.from({ length: count }, (_, i) => ({
    externalUserId: `linked-${i}`,
    loginMethods: [
      { recipeId: 'emailpassword', email: `linked${i}@example.com`, passwordHash: bcryptHash, hashingAlgorithm: 'bcrypt' },
      { recipeId: 'thirdparty', email: `linked${i}@example.com`, thirdPartyId: 'google', thirdPartyUserId: `l-${i}` },
      { recipeId: 'passwordless', phoneNumber: `+1 212 555 ${String(1000 + i).slice(-4)}` },
    ],
  }));
}

describe('plans of the statements a linked batch runs inside the users trigger', () => {
  let db: TestDatabase;
  let t: TestApp;
  beforeAll(async () => {
    db = await createTestDatabase();
    await db.pool.query(
      `INSERT INTO users (user_id, recipe_id, time_joined, email, password_hash)
         SELECT 'ep-' || i, 'emailpassword', i, 'existing' || i || '@example.com', $1 FROM generate_series(1, $2::int) i`,
      [bcryptHash, existingUsers],
    );
    await db.pool.query("UPDATE user_groups SET is_primary = true WHERE group_id LIKE 'ep-1%'");
    await db.pool.query("SELECT account_groups_refresh(ARRAY(SELECT group_id FROM user_groups WHERE group_id LIKE 'ep-1%'))");
    t = await createTestApp({ bulk_import_worker: false }, db);
  }, 120_000);
  afterAll(async () => {
    await t.close();
    await db.drop();
  });

  it('probe indexes only, with a tenth of the batch standalone', async () => {
    const input = [
      ...linkedUsers(batchSize),
      ...Array.from({ length: batchSize / 10 }, (_, i) => ({
        loginMethods: [{ recipeId: 'passwordless', email: `alone${i}@example.com` }],
      })),
    ];
    const batch = await validateBatch(db.pool, input, t.app.services.hasher, Date.now());
    expect(batch.errors).toEqual([]);
    const client = await db.pool.connect();
    const plans: { query: string; plan: PlanNode }[] = [];
    const onNotice = (notice: { message?: string }) => {
      const text = notice.message ?? '';
      const start = text.indexOf('{');
      if (!text.startsWith('duration:') || start < 0) return;
      const explained = JSON.parse(text.slice(start));
      plans.push({ query: String(explained['Query Text']).replace(/\s+/g, ' ').trim(), plan: explained.Plan });
    };
    client.on('notice', onNotice);
    try {
      await client.query('BEGIN');
      await client.query("LOAD 'auto_explain'");
      await client.query(
        `SELECT set_config('auto_explain.log_min_duration', '0', true), set_config('auto_explain.log_nested_statements', 'on', true),
           set_config('auto_explain.log_format', 'json', true), set_config('auto_explain.log_level', 'notice', true)`,
      );
      await useKeyDrivenPlans(client);
      const outcomes = await importUsers(client, batch.users, t.app.services.hasher, t.app.services.totpSecrets);
      client.off('notice', onNotice);
      expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([]);
      const { rows } = await client.query(
        "SELECT count(*)::int AS groups, count(*) FILTER (WHERE is_primary)::int AS linked FROM user_groups WHERE group_id NOT LIKE 'ep-%'",
      );
      expect(rows[0]).toEqual({ groups: batchSize + batchSize / 10, linked: batchSize });
      const { rows: reserved } = await client.query(
        "SELECT count(*)::int AS n FROM primary_account_infos WHERE info_value NOT LIKE 'existing%'",
      );
      expect(reserved[0].n).toBe(batchSize * 3);
    } finally {
      client.off('notice', onNotice);
      await client.query('ROLLBACK');
      client.release();
    }

    const refresh = plans.filter(({ query }) => /account_groups_|user_groups|user_ids|primary_account_infos/.test(query));
    // The trigger's own statements and the refresh's, at least the group, time_joined and reservation ones.
    for (const pattern of [/^DELETE FROM user_groups g/, /^UPDATE user_groups g SET time_joined/, /^INSERT INTO primary_account_infos/]) {
      expect(
        refresh.some(({ query }) => pattern.test(query)),
        pattern.source,
      ).toBe(true);
    }
    const problems = plans.flatMap(({ query, plan }) => wholeScans(plan).map((scan) => `${scan}: ${query.slice(0, 120)}`));
    expect(problems).toEqual([]);
  }, 120_000);
});
