import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, countRows, createTestApp, createTestDatabase, type TestApp, type TestDatabase, useTestApp } from '../helper.js';
import { bcryptHash } from './fixtures.js';
import { useKeyDrivenPlans } from '../../src/bulk-import/repository.js';
import { findEmailPasswordCredentials, findEmailPasswordUserByEmail } from '../../src/recipes/emailpassword/repository.js';
import { findThirdPartyUser } from '../../src/recipes/thirdparty/repository.js';
import { deleteDevicesAndFindUserByContact, findPasswordlessUserByContact } from '../../src/recipes/passwordless/repository.js';
import { findUserById } from '../../src/users/repository.js';
import { findMappingByEitherId } from '../../src/users/id-mapping/repository.js';
import { findUsersByAccountInfo } from '../../src/users/listing-repository.js';
import { findAccountHolder } from '../../src/bulk-import/complete/repository.js';
import { findWebauthnUserByEmail } from '../../src/recipes/webauthn/repository.js';

// Plans are checked on tables the planner has no statistics for, holding enough users that a plan scanning a whole
// table or index per batch would be the slow one. Nothing here is timed.
const existingUsers = 60_000;
const batchSize = 4_000;

interface Recorded {
  text: string;
  values: unknown[];
  inTransaction: boolean;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

// Every scan of a table in a plan, as "node type on table using index". A bitmap scan driven by one index counts as
// an index scan: the planner picks either from its estimates, and both probe the index with each key.
function scansOf(node: PlanNode, found: string[] = []): string[] {
  const [only, ...others] = node.Plans ?? [];
  if (node['Node Type'] === 'Bitmap Heap Scan' && others.length === 0 && only?.['Node Type'] === 'Bitmap Index Scan') {
    found.push(`Index Scan on ${node['Relation Name']} using ${only['Index Name']}`);
    return found;
  }
  if (node['Node Type'] === 'Bitmap Index Scan') found.push(`Bitmap Index Scan using ${node['Index Name']}`);
  else if (node['Relation Name'] !== undefined && node['Node Type'] !== 'ModifyTable') {
    found.push(`${node['Node Type']} on ${node['Relation Name']}${node['Index Name'] ? ` using ${node['Index Name']}` : ''}`);
  }
  for (const child of node.Plans ?? []) scansOf(child, found);
  return found;
}

async function fillWithoutStatistics(db: TestDatabase): Promise<void> {
  // As on a server with autovacuum off: on a slow run, autoanalyze would otherwise give the tables statistics.
  const { rows: tables } = await db.pool.query<{ name: string }>(
    'SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = current_schema()',
  );
  for (const { name } of tables) await db.pool.query(`ALTER TABLE ${name} SET (autovacuum_enabled = false)`);
  const thirdParty = 5_000;
  const phones = 3_000;
  await db.pool.query(
    `INSERT INTO users (user_id, recipe_id, time_joined, email, password_hash)
       SELECT 'ep-' || i, 'emailpassword', i, 'existing' || i || '@example.com', $1 FROM generate_series(1, $2::int) i`,
    [bcryptHash, existingUsers - thirdParty - phones],
  );
  await db.pool.query(
    `INSERT INTO users (user_id, recipe_id, time_joined, email, third_party_id, third_party_user_id)
       SELECT 'tp-' || i, 'thirdparty', i, 'tp' || i || '@example.com', 'google', 'existing-' || i FROM generate_series(1, $1::int) i`,
    [thirdParty],
  );
  await db.pool.query(
    `INSERT INTO users (user_id, recipe_id, time_joined, phone_number)
       SELECT 'pl-' || i, 'passwordless', i, '+1999' || lpad(i::text, 7, '0') FROM generate_series(1, $1::int) i`,
    [phones],
  );
  await db.pool.query("INSERT INTO user_id_mappings (user_id, external_user_id) SELECT user_id, 'existing-ext-' || user_id FROM users");
  // The third-party users are primary users, so their values are reserved (AL-2.1).
  await db.pool.query("UPDATE user_groups SET is_primary = true WHERE group_id LIKE 'tp-%'");
  await db.pool.query("SELECT account_groups_refresh(ARRAY(SELECT group_id FROM user_groups WHERE group_id LIKE 'tp-%'))");
  await db.pool.query('INSERT INTO email_verifications (user_id, email) SELECT user_id, email FROM users WHERE email IS NOT NULL');
  await db.pool.query("INSERT INTO roles (role) VALUES ('admin'), ('editor')");
}

function importBatch(count: number, prefix: string): unknown[] {
  return Array.from({ length: count }, (_, i) => {
    const roles = i % 20 === 0 ? { userRoles: [{ role: 'admin', tenantIds: ['public'] }] } : {};
    const metadata = i % 10 === 0 ? { userMetadata: { plan: 'pro' } } : {};
    const time = { timeJoinedInMSSinceEpoch: 1_600_000_000_000 + i };
    if (i % 10 === 1) {
      return {
        loginMethods: [
          {
            recipeId: 'thirdparty',
            email: `${prefix}tp${i}@example.com`,
            thirdPartyId: 'google',
            thirdPartyUserId: `${prefix}${i}`,
            ...time,
          },
        ],
      };
    }
    if (i % 10 === 2 && i < 8_000) {
      return { loginMethods: [{ recipeId: 'passwordless', phoneNumber: `+1 415 555 ${String(1000 + i).slice(-4)}`, ...time }] };
    }
    if (i % 10 === 3) return { loginMethods: [{ recipeId: 'passwordless', email: `${prefix}pl${i}@example.com`, ...time }] };
    // One user in ten has a password, Google and a phone number: one primary user (AL-11).
    if (i % 10 === 4) {
      return {
        externalUserId: `${prefix}ext-${i}`,
        ...metadata,
        loginMethods: [
          {
            recipeId: 'emailpassword',
            email: `${prefix}multi${i}@example.com`,
            passwordHash: bcryptHash,
            hashingAlgorithm: 'bcrypt',
            ...time,
          },
          {
            recipeId: 'thirdparty',
            email: `${prefix}multi${i}@example.com`,
            thirdPartyId: 'google',
            thirdPartyUserId: `${prefix}m${i}`,
            ...time,
          },
          { recipeId: 'passwordless', phoneNumber: `+1 212 555 ${String(1000 + i).slice(-4)}`, ...time },
        ],
      };
    }
    return {
      externalUserId: `${prefix}ext-${i}`,
      ...roles,
      ...metadata,
      loginMethods: [
        {
          recipeId: 'emailpassword',
          email: `${prefix}user${i}@example.com`,
          passwordHash: bcryptHash,
          hashingAlgorithm: 'bcrypt',
          isVerified: i % 2 === 0,
          ...time,
        },
      ],
    };
  });
}

// Records every statement the pool runs, and whether it ran on a transaction's client.
function recordStatements(pool: pg.Pool): { statements: Recorded[]; stop(): void } {
  const statements: Recorded[] = [];
  const record = (inTransaction: boolean, args: unknown[]) => {
    const config = typeof args[0] === 'string' ? { text: args[0], values: args[1] } : (args[0] as { text: string; values?: unknown[] });
    if (Array.isArray(config.values) && config.values.length > 0)
      statements.push({ text: config.text, values: config.values, inTransaction });
  };
  const originalQuery = pool.query;
  const originalConnect = pool.connect as (...args: unknown[]) => Promise<pg.PoolClient>;
  const wrapped = new WeakSet<object>();
  pool.query = ((...args: unknown[]) => {
    record(false, args);
    return (originalQuery as (...a: unknown[]) => unknown).apply(pool, args);
  }) as typeof pool.query;
  // pool.query checks out its client through connect(callback); only promise callers are wrapped.
  pool.connect = (async (...args: unknown[]) => {
    if (args.length > 0) return originalConnect.apply(pool, args);
    const client = await originalConnect.call(pool);
    if (!wrapped.has(client)) {
      wrapped.add(client);
      const clientQuery = client.query;
      client.query = ((...args: unknown[]) => {
        record(true, args);
        return (clientQuery as (...a: unknown[]) => unknown).apply(client, args);
      }) as typeof client.query;
    }
    return client;
  }) as typeof pool.connect;
  return {
    statements,
    stop() {
      pool.query = originalQuery;
      pool.connect = originalConnect as typeof pool.connect;
    },
  };
}

// The plan PostgreSQL makes for a recorded statement, with the settings it ran under.
async function scansFor(pool: pg.Pool, statement: Recorded): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    if (statement.inTransaction) await useKeyDrivenPlans(client);
    const { rows } = await client.query({ text: `EXPLAIN (FORMAT JSON) ${statement.text}`, values: statement.values });
    return scansOf(rows[0]['QUERY PLAN'][0].Plan);
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

async function neverAnalyzed(db: TestDatabase): Promise<boolean> {
  const { rows } = await db.pool.query("SELECT reltuples::float8 AS reltuples FROM pg_class WHERE oid = 'users'::regclass");
  return rows[0].reltuples === -1;
}

const conflictScans = [
  // Email-password and passwordless emails: one probe each, of the one email index.
  'Index Only Scan on login_method_tenants using login_method_tenants__email_key',
  'Index Only Scan on login_method_tenants using login_method_tenants__email_key',
  'Index Only Scan on login_method_tenants using login_method_tenants__passwordless_phone_number_key',
  'Index Only Scan on login_method_tenants using login_method_tenants__thirdparty_key',
  'Index Only Scan on user_id_mappings using user_id_mappings__external_user_id_key',
  'Index Only Scan on roles using roles__pkey',
  // The reservation's holder is read too (the E027 text names it), then its old id by primary key.
  'Index Scan on primary_account_infos using primary_account_infos__info_key',
  'Index Scan on user_id_mappings using user_id_mappings__pkey',
];

// What each statement of the bulk path may scan: the unique indexes of the keys it looks up, and nothing else.
const expectedScans: { statement: RegExp; scans: string[] }[] = [
  { statement: /^SELECT k\.role FROM unnest/, scans: ['Index Only Scan on roles using roles__pkey'] },
  { statement: /^INSERT INTO bulk_import_users/, scans: [] },
  { statement: /^SELECT 'emailpassword-email'/, scans: conflictScans },
  {
    statement: /^SELECT id, raw_data FROM bulk_import_users/,
    scans: ['Index Scan on bulk_import_users using bulk_import_users__status_created_at_idx'],
  },
  { statement: /^INSERT INTO user_groups \(group_id, is_primary, time_joined\)/, scans: [] },
  { statement: /^INSERT INTO user_ids \(user_id, group_id\) SELECT \* FROM unnest/, scans: [] },
  { statement: /^INSERT INTO users /, scans: [] },
  { statement: /^INSERT INTO user_id_mappings /, scans: [] },
  { statement: /^INSERT INTO email_verifications /, scans: [] },
  { statement: /^INSERT INTO user_metadata /, scans: [] },
  { statement: /^INSERT INTO user_roles /, scans: [] },
  { statement: /^DELETE FROM bulk_import_users WHERE id = ANY/, scans: ['Index Scan on bulk_import_users using bulk_import_users__pkey'] },
  {
    statement: /^UPDATE bulk_import_users b SET status = 'FAILED'/,
    scans: ['Index Scan on bulk_import_users using bulk_import_users__pkey'],
  },
  {
    statement: /^WITH found AS/,
    scans: [
      'Index Scan on user_id_mappings using user_id_mappings__external_user_id_key',
      'Index Only Scan on users using users__pkey',
      // Email-password, passwordless and passkey emails, each its own probe.
      'Index Scan on login_method_tenants using login_method_tenants__email_key',
      'Index Scan on login_method_tenants using login_method_tenants__email_key',
      'Index Scan on login_method_tenants using login_method_tenants__email_key',
      'Index Scan on login_method_tenants using login_method_tenants__passwordless_phone_number_key',
      'Index Scan on login_method_tenants using login_method_tenants__thirdparty_key',
      'Index Scan on user_ids using user_ids__pkey',
      'Index Scan on user_ids using user_ids__group_id_idx',
      'Index Scan on users using users__pkey',
      'Index Scan on user_id_mappings using user_id_mappings__pkey',
    ],
  },
];

function lookupKeys(users: unknown[]) {
  const keys = {
    externalUserIds: [] as string[],
    emails: [] as string[],
    phoneNumbers: [] as string[],
    thirdPartyAccounts: [] as object[],
  };
  for (const user of users as { externalUserId?: string; loginMethods: Record<string, string>[] }[]) {
    const method = user.loginMethods[0];
    if (user.externalUserId) keys.externalUserIds.push(user.externalUserId);
    if (method.email) keys.emails.push(method.email);
    if (method.phoneNumber) keys.phoneNumbers.push(method.phoneNumber);
    if (method.thirdPartyId) keys.thirdPartyAccounts.push({ thirdPartyId: method.thirdPartyId, thirdPartyUserId: method.thirdPartyUserId });
  }
  return keys;
}

describe('bulk-import plans on tables that were never analyzed', () => {
  let db: TestDatabase;
  let t: TestApp;
  beforeAll(async () => {
    db = await createTestDatabase();
    await fillWithoutStatistics(db);
    t = await createTestApp({ bulk_migration_batch_size: batchSize, bulk_migration_parallelism: 1, bulk_import_worker: false }, db);
  }, 120_000);
  afterAll(async () => {
    await t.close();
    await db.drop();
  });

  it('every statement of a dry run, an enqueue and a batch import probes the unique indexes, one key at a time', async () => {
    expect(await neverAnalyzed(db)).toBe(true);
    const users = importBatch(batchSize, 'new-');
    // Some users of the batch collide with existing ones, so the batch also fails rows.
    users[4] = {
      loginMethods: [{ recipeId: 'emailpassword', email: 'existing7@example.com', passwordHash: bcryptHash, hashingAlgorithm: 'bcrypt' }],
    };
    users[14] = {
      externalUserId: 'existing-ext-ep-9',
      loginMethods: [{ recipeId: 'emailpassword', email: 'fresh@example.com', passwordHash: bcryptHash, hashingAlgorithm: 'bcrypt' }],
    };
    // Its third-party email is an existing primary user's: E027.
    (users[24] as { loginMethods: { email?: string }[] }).loginMethods[1].email = 'tp7@example.com';

    const recorder = recordStatements(db.pool);
    try {
      expect((await call(t.app, 'POST', '/bulk-import/users', { body: { users }, query: { dryRun: 'true' } })).statusCode).toBe(400);
      expect((await call(t.app, 'POST', '/bulk-import/users', { body: { users } })).statusCode).toBe(200);
      await t.app.services.bulkImportWorker.processUntilEmpty();
      // The migration command looks the users of a batch up by their keys; the answer lists every login method of
      // each user found, with its user's id.
      const lookup = await call(t.app, 'POST', '/bulk-import/users/lookup', { body: lookupKeys(users) });
      const found = new Set(lookup.json.users.map((user: { groupId: string }) => user.groupId));
      // All but the E027 user, whose keys (those of its first login method) are nobody's.
      expect([lookup.statusCode, found.size]).toEqual([200, batchSize - 1]);
    } finally {
      recorder.stop();
    }

    const { rows } = await db.pool.query(
      `SELECT count(*)::int AS imported, count(*) FILTER (WHERE is_primary)::int AS linked FROM user_groups
        WHERE group_id NOT LIKE 'ep-%' AND group_id NOT LIKE 'tp-%' AND group_id NOT LIKE 'pl-%'`,
    );
    expect(rows[0]).toEqual({ imported: batchSize - 3, linked: batchSize / 10 - 3 });
    expect(await neverAnalyzed(db)).toBe(true);

    const explained: { statement: string; inTransaction: boolean; scans: string[] }[] = [];
    for (const statement of recorder.statements) {
      const text = statement.text.replace(/\s+/g, ' ').trim();
      if (!expectedScans.some(({ statement: pattern }) => pattern.test(text))) continue;
      if (explained.some((seen) => seen.statement === text && seen.inTransaction === statement.inTransaction)) continue;
      explained.push({ statement: text, inTransaction: statement.inTransaction, scans: await scansFor(db.pool, statement) });
    }
    const matched = expectedScans.map(({ statement, scans }) => ({ statement: statement.source, scans }));
    for (const { statement } of expectedScans) {
      const runs = explained.filter((entry) => statement.test(entry.statement));
      expect(runs.length, `${statement.source} ran`).toBeGreaterThan(0);
      for (const run of runs)
        expect({ statement: statement.source, scans: run.scans }).toEqual(matched.find((m) => m.statement === statement.source));
    }
    // The conflict check runs outside a batch transaction too (the dry run), where only its shape keeps it on the indexes.
    expect(
      explained
        .filter((entry) => /^SELECT 'emailpassword-email'/.test(entry.statement))
        .map((entry) => entry.inTransaction)
        .sort(),
    ).toEqual([false, true]);
  }, 120_000);

  it('the single-user routes keep index plans, generic ones included', async () => {
    const client = await db.pool.connect();
    try {
      await client.query('SET plan_cache_mode = force_generic_plan');
      const calls: [string, (c: pg.PoolClient) => Promise<unknown>, string[]][] = [
        ['sign-in', (c) => findEmailPasswordCredentials(c, 'public', 'existing5@example.com'), ['login_method_tenants__email_key']],
        [
          'email-password user by email',
          (c) => findEmailPasswordUserByEmail(c, 'public', 'existing5@example.com'),
          ['login_method_tenants__email_key'],
        ],
        ['third-party user', (c) => findThirdPartyUser(c, 'public', 'google', 'existing-5'), ['login_method_tenants__thirdparty_key']],
        [
          'passwordless user by phone',
          (c) => findPasswordlessUserByContact(c, 'public', { kind: 'phoneNumber', value: '+19990000005' }),
          ['login_method_tenants__passwordless_phone_number_key'],
        ],
        [
          'consume',
          (c) => deleteDevicesAndFindUserByContact(c, 'public', { kind: 'phoneNumber', value: '+19990000005' }),
          ['login_method_tenants__passwordless_phone_number_key'],
        ],
        [
          'users by email',
          (c) => findUsersByAccountInfo(c, 'public', { email: 'existing5@example.com' }, false),
          ['login_method_tenants__email_key'],
        ],
        [
          'users by phone',
          (c) => findUsersByAccountInfo(c, 'public', { phoneNumber: '+19990000005' }, false),
          ['login_method_tenants__passwordless_phone_number_key'],
        ],
        [
          'account holder',
          (c) => findAccountHolder(c, { recipeId: 'thirdparty', thirdPartyId: 'google', thirdPartyUserId: 'existing-5' }),
          ['login_method_tenants__thirdparty_key'],
        ],
        [
          'passkey user by email',
          (c) => findWebauthnUserByEmail(c, 'public', 'existing5@example.com'),
          ['login_method_tenants__email_key'],
        ],
        ['user by either id', (c) => findUserById(c, 'existing-ext-ep-5'), ['users__pkey', 'user_id_mappings__external_user_id_key']],
        ['mapping by either id', (c) => findMappingByEitherId(c, 'existing-ext-ep-5'), ['user_id_mappings__external_user_id_key']],
      ];
      for (const [name, run, indexes] of calls) {
        const before = new Set((await client.query('SELECT name FROM pg_prepared_statements')).rows.map((row) => row.name));
        await run(client);
        const { rows } = await client.query('SELECT name, statement FROM pg_prepared_statements');
        const fresh = rows.filter((row) => !before.has(row.name));
        expect(fresh, name).toHaveLength(1);
        const values = valuesOf(name);
        const literals = values.map((value) => client.escapeLiteral(value)).join(', ');
        const plan = await client.query(`EXPLAIN (FORMAT JSON) EXECUTE "${fresh[0].name}"(${literals})`);
        const scans = scansOf(plan.rows[0]['QUERY PLAN'][0].Plan);
        expect(
          scans.filter((scan) => scan.startsWith('Seq Scan')),
          name,
        ).toEqual([]);
        for (const index of indexes)
          expect(
            scans.some((scan) => scan.endsWith(` using ${index}`)),
            `${name}: ${scans.join('; ')}`,
          ).toBe(true);
      }
    } finally {
      await client.query('RESET plan_cache_mode');
      client.release();
    }
  });
});

// The parameters each prepared statement above was run with.
function valuesOf(name: string): string[] {
  switch (name) {
    case 'sign-in':
    case 'email-password user by email':
      return ['public', 'existing5@example.com'];
    case 'third-party user':
      return ['public', 'google', 'existing-5'];
    case 'passwordless user by phone':
    case 'consume':
      return ['public', '+19990000005'];
    case 'users by email':
      return ['existing5@example.com', 'public'];
    case 'users by phone':
      return ['+19990000005', 'public'];
    case 'account holder':
      return ['google', 'existing-5'];
    case 'passkey user by email':
      return ['public', 'existing5@example.com'];
    default:
      return ['existing-ext-ep-5'];
  }
}

describe('statistics after an import into tables analyzed while empty', () => {
  const t = useTestApp({ bulk_migration_batch_size: 5_000, bulk_migration_parallelism: 1, bulk_import_worker: false });

  it('are refreshed, so a sign-in plan cached while the tables were empty is replaced by an index lookup', async () => {
    await t.db.pool.query("INSERT INTO roles (role) VALUES ('admin')");
    await t.db.pool.query('ANALYZE users, login_method_tenants, user_id_mappings, email_verifications');
    const client = await t.db.pool.connect();
    try {
      // Enough executions for the connection to settle on a generic plan, made for an empty table.
      for (let i = 0; i < 8; i++) await findEmailPasswordCredentials(client, 'public', 'new-user5@example.com');
      const { rows } = await client.query("SELECT name FROM pg_prepared_statements WHERE statement LIKE '%u.password_hash FROM%'");
      expect(rows).toHaveLength(1);
      const signInPlan = async () => {
        const plan = await client.query(`EXPLAIN (FORMAT JSON) EXECUTE "${rows[0].name}"('public', 'new-user5@example.com')`);
        return scansOf(plan.rows[0]['QUERY PLAN'][0].Plan).filter((scan) => / on login_method_tenants/.test(scan));
      };
      expect(await signInPlan()).toContain('Seq Scan on login_method_tenants');

      const reply = await call(t.app, 'POST', '/bulk-import/users', { body: { users: importBatch(10_000, 'new-') } });
      expect(reply.statusCode).toBe(200);
      await t.app.services.bulkImportWorker.processUntilEmpty();

      // A tenth of the users have three login methods.
      expect(await countRows(t.db, 'users')).toBe(12_000);
      const { rows: statistics } = await t.db.pool.query(
        "SELECT reltuples::float8 AS reltuples FROM pg_class WHERE oid = 'users'::regclass",
      );
      expect(statistics[0].reltuples).toBe(12_000);
      const after = await signInPlan();
      expect(after).toContain('Index Scan on login_method_tenants using login_method_tenants__email_key');
      expect(after).not.toContain('Seq Scan on login_method_tenants');
    } finally {
      client.release();
    }
  }, 120_000);
});
