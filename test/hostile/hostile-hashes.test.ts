// One imported row must not be able to make a sign-in allocate gigabytes or run for hours: hashes whose cost is over
// the import bounds are refused at every entry (single import, bulk import, the migration command's dry run) with
// the parameter, the limit and the config key that raises it, and nothing is written.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, createTestApp, snapshot, truncateAll } from '../helper.js';
import { ARGON2_VECTORS, BCRYPT_VECTORS, PUBLISHED_SCRYPT_HASH } from '../hashing/vectors.js';
import { apiKey, migrateArgs, runCommand, startCore, type RunningCore } from '../cli/harness.js';
import { makeTempDir } from '../cli/fixtures.js';

const ARGON2 = ARGON2_VECTORS[0].hash;
const SALT_AND_DIGEST = ARGON2.split('$').slice(-2).join('$');
const SCRYPT_PARAMS = PUBLISHED_SCRYPT_HASH.slice(0, PUBLISHED_SCRYPT_HASH.indexOf('$m='));
const raise = (key: string) => `(raise ${key} to accept it)`;

const HOSTILE = [
  {
    description: 'argon2id with 4 GiB and t=1024 (about an hour and 4 GiB per sign-in)',
    hash: `$argon2id$v=19$m=4194304,t=1024,p=1$${SALT_AND_DIGEST}`,
    algorithm: 'argon2',
    named: 'Password hash is in invalid Argon2 format',
    reason: `memory m = 4194304 KiB is over the limit of 131072 KiB ${raise('imported_hash_max_memory_kib')}`,
  },
  {
    description: 'argon2id within the memory bound but t=1024',
    hash: `$argon2id$v=19$m=131072,t=1024,p=1$${SALT_AND_DIGEST}`,
    algorithm: 'argon2',
    named: 'Password hash is in invalid Argon2 format',
    reason: `memory × iterations m × t = 134217728 KiB is over the limit of 262144 KiB ${raise('imported_hash_max_argon2_work_kib')}`,
  },
  {
    description: 'bcrypt cost 31 (about 38 hours per sign-in)',
    hash: `$2b$31${BCRYPT_VECTORS[0].hash.slice(6)}`,
    algorithm: 'bcrypt',
    named: 'Password hash is in invalid BCrypt format',
    reason: `cost = 31 is over the limit of 13 ${raise('imported_hash_max_bcrypt_cost')}`,
  },
  {
    description: 'maximal scrypt variant (mem_cost 20, rounds 8: 1 GiB)',
    hash: `${SCRYPT_PARAMS}$m=20$r=8$s=Bw==`,
    algorithm: 'idp_scrypt',
    named: 'Password hash is in invalid Firebase SCrypt format',
    reason: `memory 128 * 2^mem_cost * rounds = 1048576 KiB is over the limit of 131072 KiB ${raise('imported_hash_max_memory_kib')}`,
  },
];

describe('hostile hashes are refused at import', () => {
  const temp = makeTempDir();
  let core: RunningCore;
  const headers = { 'api-key': apiKey };
  beforeAll(async () => {
    core = await startCore({ bulk_import_worker: false });
  });
  afterAll(async () => {
    await core.t.close();
    temp.remove();
  });
  beforeEach(() => truncateAll(core.t.db));

  it.each(HOSTILE)('single import: $description', async ({ hash, algorithm, named, reason }) => {
    const before = await snapshot(core.t.db);
    for (const [body, message] of [
      [{ email: 'h@example.com', passwordHash: hash }, `Password hash is in invalid format: ${reason}`],
      [{ email: 'h@example.com', passwordHash: hash, hashingAlgorithm: algorithm }, `${named}: ${reason}`],
    ] as const) {
      const reply = await call(core.t.app, 'POST', '/recipe/user/passwordhash/import', { body, headers });
      expect([reply.statusCode, reply.body]).toEqual([400, `${message}\n`]);
    }
    expect(await snapshot(core.t.db)).toEqual(before);
  });

  it.each(HOSTILE.flatMap((hostile) => [false, true].map((dryRun) => ({ ...hostile, dryRun }))))(
    'bulk import (dryRun $dryRun): $description',
    async ({ hash, algorithm, named, reason, dryRun }) => {
      const before = await snapshot(core.t.db);
      const user = {
        loginMethods: [{ recipeId: 'emailpassword', email: 'h@example.com', passwordHash: hash, hashingAlgorithm: algorithm }],
      };
      const query: Record<string, string> = dryRun ? { dryRun: 'true' } : {};
      const reply = await call(core.t.app, 'POST', '/bulk-import/users', { query, body: { users: [user] }, headers });
      expect([reply.statusCode, reply.json]).toEqual([
        400,
        {
          error: 'Data has missing or invalid fields. Please check the users field for more details.',
          users: [{ index: 0, errors: [`${named}: ${reason}`] }],
        },
      ]);
      expect(await snapshot(core.t.db)).toEqual(before);
    },
  );

  it("the migration command's dry run reports each with its reason and writes nothing", async () => {
    const lines = HOSTILE.map(({ hash, algorithm }, index) => ({
      externalUserId: `hostile-${index}`,
      email: `h${index}@example.com`,
      passwordHash: hash,
      hashingAlgorithm: algorithm,
    }));
    const file = temp.file('hostile.ndjson', lines.map((line) => JSON.stringify(line)).join('\n'));
    const before = await snapshot(core.t.db);
    const result = await runCommand(migrateArgs(core, 'ndjson', file, '--dry-run'));
    expect(result.code).toBe(1);
    for (const [index, { named, reason }] of HOSTILE.entries()) {
      expect(result.stdout).toContain(`  hostile-${index} (record ${index + 1}, refused by the core): ${named}: ${reason}\n`);
    }
    expect(await snapshot(core.t.db)).toEqual(before);
  });
});

describe('an operator can raise a bound', () => {
  it('bcrypt cost 14 imports once imported_hash_max_bcrypt_cost is 14', async () => {
    const t = await createTestApp({ imported_hash_max_bcrypt_cost: 14 });
    try {
      const hash = `$2b$14${BCRYPT_VECTORS[0].hash.slice(6)}`;
      const reply = await call(t.app, 'POST', '/recipe/user/passwordhash/import', { body: { email: 'h@example.com', passwordHash: hash } });
      expect([reply.statusCode, reply.json?.status]).toEqual([200, 'OK']);
      const stored = await t.db.pool.query('SELECT password_hash FROM users WHERE email = $1', ['h@example.com']);
      expect(stored.rows).toEqual([{ password_hash: hash }]);
    } finally {
      await t.close();
    }
  });
});
