import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { buildApp } from '../../src/app.js';
import { createPool } from '../../src/db/pool.js';
import { migrate, readMigrations } from '../../src/db/migrate.js';
import { createLogger } from '../../src/logger.js';
import { databaseUrl, testConfig, testPoolMode } from '../helper.js';
import { bcryptHash } from './support/routes.js';

// Two cores, each with its own pool (as two processes would have), start together on one empty schema and then
// share the load: the same users reach both, codes made on one are consumed on both, and both bulk workers drain
// one queue. Nothing may be applied, created or imported twice, and nothing may be lost.
const scale = Number(process.env.TWO_INSTANCES_SCALE ?? 1);
const pairs = 150 * scale;
const queued = 2000 * scale;

describe('two core instances on one database', () => {
  const schema = `two_${crypto.randomBytes(5).toString('hex')}`;
  const pools: pg.Pool[] = [];
  const cores: FastifyInstance[] = [];
  let applied: string[][];

  beforeAll(async () => {
    pools.push(...[0, 1].map(() => createPool({ connectionString: databaseUrl, schema, size: 8, poolMode: testPoolMode })));
    applied = await Promise.all(pools.map((pool) => migrate(pool, schema)));
    // Small batches and one loop each, so both workers keep claiming from the same queue.
    const config = testConfig({
      bulk_migration_batch_size: 50,
      bulk_migration_parallelism: 2,
      bulk_migration_sleep_between_rounds_in_batch_ms: 10,
      bulk_import_worker: false,
    });
    for (const pool of pools) {
      const core = await buildApp({ config, pool, logger: createLogger(config) });
      await core.ready();
      cores.push(core);
    }
  });

  afterAll(async () => {
    await Promise.all(cores.map((core) => core.close()));
    await pools[0].query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await Promise.all(pools.map((pool) => pool.end()));
  });

  const post = async (core: FastifyInstance, url: string, payload: object) => {
    const response = await core.inject({ method: 'POST', url, payload });
    return { statusCode: response.statusCode, json: response.json() };
  };
  const count = async (sql: string) => (await pools[0].query<{ n: number }>(sql)).rows[0].n;

  it('applied every migration once', async () => {
    const names = readMigrations().map((migration) => `${String(migration.version).padStart(4, '0')}_${migration.name}`);
    expect(applied.flat().sort()).toEqual(names);
    expect(applied.filter((list) => list.length > 0)).toHaveLength(1);
    expect(await count('SELECT count(*)::int AS n FROM schema_migrations')).toBe(names.length);
  });

  it(`shares imports, sign-ups, third-party sign-ins and consumes without duplicates (${pairs} of each)`, async () => {
    const [a, b] = cores;
    const codes = await Promise.all(
      Array.from(
        { length: pairs },
        async (_, i) => (await post(i % 2 ? a : b, '/recipe/signinup/code', { email: `c${i}@example.com` })).json,
      ),
    );
    const outcomes = await Promise.all(
      Array.from({ length: pairs }, async (_, i) => {
        const consume = { preAuthSessionId: codes[i].preAuthSessionId, linkCode: codes[i].linkCode };
        const tp = { thirdPartyId: 'github', thirdPartyUserId: `gh-${i}`, email: { id: `t${i}@example.com` } };
        const answers = await Promise.all([
          post(a, '/recipe/user/passwordhash/import', { email: `i${i}@example.com`, passwordHash: bcryptHash }),
          post(b, '/recipe/user/passwordhash/import', { email: `i${i}@example.com`, passwordHash: bcryptHash }),
          post(a, '/recipe/signup', { email: `s${i}@example.com`, password: 'pw' }),
          post(b, '/recipe/signup', { email: `s${i}@example.com`, password: 'pw' }),
          post(a, '/recipe/signinup', tp),
          post(b, '/recipe/signinup', tp),
          post(a, '/recipe/signinup/code/consume', consume),
          post(b, '/recipe/signinup/code/consume', consume),
        ]);
        return answers.map((answer) => `${answer.statusCode} ${answer.json.status}`);
      }),
    );
    for (const statuses of outcomes) {
      expect(statuses.slice(0, 2)).toEqual(['200 OK', '200 OK']);
      expect(statuses.slice(2, 4).sort()).toEqual(['200 EMAIL_ALREADY_EXISTS_ERROR', '200 OK']);
      expect(statuses.slice(4, 6)).toEqual(['200 OK', '200 OK']);
      expect(statuses.slice(6, 8).sort()).toEqual(['200 OK', '200 RESTART_FLOW_ERROR']);
    }
    expect(await count(`SELECT count(*)::int AS n FROM users`)).toBe(4 * pairs);
    expect(
      await count(`SELECT count(DISTINCT (recipe_id, coalesce(email, ''), coalesce(third_party_user_id, '')))::int AS n FROM users`),
    ).toBe(4 * pairs);
    expect(await count('SELECT count(*)::int AS n FROM passwordless_devices')).toBe(0);
  });

  it(`drains one bulk queue from both workers, importing each of ${queued} users exactly once`, async () => {
    const [a, b] = cores;
    const perCall = 250;
    // Queue everything first (the cores run no background worker), then let both drain it at the same moment.
    const answers = await Promise.all(
      Array.from({ length: queued / perCall }, (_, call) =>
        post(call % 2 ? a : b, '/bulk-import/users', {
          users: Array.from({ length: perCall }, (_, n) => {
            const i = call * perCall + n;
            return {
              externalUserId: `legacy-${i}`,
              loginMethods: [
                i % 3 === 0
                  ? { recipeId: 'passwordless', email: `bp${i}@example.com` }
                  : {
                      recipeId: 'emailpassword',
                      email: `bulk${i}@example.com`,
                      passwordHash: bcryptHash,
                      hashingAlgorithm: 'bcrypt',
                      isVerified: true,
                    },
              ],
            };
          }),
        }),
      ),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(queued / perCall).fill(200));
    expect(await count("SELECT count(*)::int AS n FROM bulk_import_users WHERE status = 'NEW'")).toBe(queued);
    await Promise.all(cores.map((core) => core.services.bulkImportWorker.processUntilEmpty()));
    expect(await count('SELECT count(*)::int AS n FROM bulk_import_users')).toBe(0);
    expect(await count("SELECT count(*)::int AS n FROM users WHERE email LIKE 'b%'")).toBe(queued);
    expect(await count("SELECT count(*)::int AS n FROM user_id_mappings WHERE external_user_id LIKE 'legacy-%'")).toBe(queued);
    expect(
      await count("SELECT count(DISTINCT external_user_id)::int AS n FROM user_id_mappings WHERE external_user_id LIKE 'legacy-%'"),
    ).toBe(queued);
    const emailPasswordUsers = Array.from({ length: queued }, (_, i) => i).filter((i) => i % 3 !== 0).length;
    expect(await count("SELECT count(*)::int AS n FROM email_verifications WHERE email LIKE 'bulk%'")).toBe(emailPasswordUsers);
  });
});
