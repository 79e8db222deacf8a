import { afterAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { useTestApp } from '../helper.js';
import { bcryptHash, argon2idHash } from './support/routes.js';

// Pairs of identical (or conflicting) requests sent at the same moment against the real database: each pair
// must have exactly one winner, no 500, and leave no duplicate row. RACE_PAIRS scales the total.
const totalPairs = Number(process.env.RACE_PAIRS ?? 1000);
const kinds = 6;
const pairsPerKind = Math.ceil(totalPairs / kinds);
// Pairs in flight at once: enough to overlap transactions, within the pool of 20 connections.
const concurrency = 8;

interface Answer {
  statusCode: number;
  json: any;
}

async function send(app: FastifyInstance, url: string, body: unknown, method: 'POST' | 'PUT' = 'POST'): Promise<Answer> {
  const response = await app.inject({ method, url, payload: body as object });
  let json: unknown;
  try {
    json = response.json();
  } catch {
    json = response.body;
  }
  return { statusCode: response.statusCode, json };
}

// Runs `race(i)` for every pair, `concurrency` pairs at a time, both requests of a pair released together.
async function racePairs(count: number, race: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await race(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

const statuses = (pair: Answer[]) =>
  pair.map((answer) => `${answer.statusCode} ${answer.json?.status ?? JSON.stringify(answer.json)}`).sort();

describe('racing pairs', () => {
  const t = useTestApp();
  let raced = 0;
  afterAll(() => console.info(`races: ${raced} pairs`));

  it(`same-email hash imports: one creates, one replaces (${pairsPerKind} pairs)`, async () => {
    await racePairs(pairsPerKind, async (i) => {
      const email = `import-${i}@example.com`;
      const pair = await Promise.all([
        send(t.app, '/recipe/user/passwordhash/import', { email, passwordHash: bcryptHash }),
        send(t.app, '/recipe/user/passwordhash/import', { email, passwordHash: argon2idHash }),
      ]);
      expect(statuses(pair), email).toEqual(['200 OK', '200 OK']);
      expect(pair.map((answer) => answer.json.didUserAlreadyExist).sort(), email).toEqual([false, true]);
      expect(pair[0].json.user.id, email).toBe(pair[1].json.user.id);
      raced++;
    });
    const { rows } = await t.db.pool.query(
      "SELECT count(*)::int AS n, count(DISTINCT email)::int AS emails FROM users WHERE email LIKE 'import-%'",
    );
    expect(rows[0]).toEqual({ n: pairsPerKind, emails: pairsPerKind });
  });

  it(`same-email sign-ups: one OK, one EMAIL_ALREADY_EXISTS_ERROR (${pairsPerKind} pairs)`, async () => {
    await racePairs(pairsPerKind, async (i) => {
      const email = `signup-${i}@example.com`;
      const pair = await Promise.all([
        send(t.app, '/recipe/signup', { email, password: 'first' }),
        send(t.app, '/recipe/signup', { email: ` ${email.toUpperCase()} `, password: 'second' }),
      ]);
      expect(statuses(pair), email).toEqual(['200 EMAIL_ALREADY_EXISTS_ERROR', '200 OK']);
      raced++;
    });
    const { rows } = await t.db.pool.query("SELECT count(*)::int AS n FROM users WHERE email LIKE 'signup-%'");
    expect(rows[0].n).toBe(pairsPerKind);
  });

  it(`same-code consumes: one OK, one RESTART_FLOW_ERROR, one user (${pairsPerKind} pairs)`, async () => {
    const codes = await Promise.all(
      Array.from(
        { length: pairsPerKind },
        async (_, i) => (await send(t.app, '/recipe/signinup/code', { email: `consume-${i}@example.com` })).json,
      ),
    );
    await racePairs(pairsPerKind, async (i) => {
      const code = codes[i];
      // Half the pairs race on the link, half on the device id and user input code.
      const body =
        i % 2 === 0
          ? { preAuthSessionId: code.preAuthSessionId, linkCode: code.linkCode }
          : { preAuthSessionId: code.preAuthSessionId, deviceId: code.deviceId, userInputCode: code.userInputCode };
      const pair = await Promise.all([
        send(t.app, '/recipe/signinup/code/consume', body),
        send(t.app, '/recipe/signinup/code/consume', body),
      ]);
      expect(statuses(pair), code.preAuthSessionId).toEqual(['200 OK', '200 RESTART_FLOW_ERROR']);
      expect(pair.find((answer) => answer.json.status === 'OK')!.json.createdNewUser).toBe(true);
      raced++;
    });
    const { rows } = await t.db.pool.query(
      "SELECT count(*)::int AS n, count(DISTINCT email)::int AS emails FROM users WHERE email LIKE 'consume-%'",
    );
    expect(rows[0]).toEqual({ n: pairsPerKind, emails: pairsPerKind });
    const devices = await t.db.pool.query("SELECT count(*)::int AS n FROM passwordless_devices WHERE email LIKE 'consume-%'");
    expect(devices.rows[0].n).toBe(0);
  });

  it(`same-pair third-party sign-in-ups: both OK, one creates (${pairsPerKind} pairs)`, async () => {
    await racePairs(pairsPerKind, async (i) => {
      const pair = await Promise.all([
        send(t.app, '/recipe/signinup', {
          thirdPartyId: 'google',
          thirdPartyUserId: `race-${i}`,
          email: { id: `tp-${i}@example.com`, isVerified: true },
        }),
        send(t.app, '/recipe/signinup', {
          thirdPartyId: 'google',
          thirdPartyUserId: `race-${i}`,
          email: { id: `tp-${i}@example.com`, isVerified: false },
        }),
      ]);
      expect(statuses(pair), `race-${i}`).toEqual(['200 OK', '200 OK']);
      expect(pair.map((answer) => answer.json.createdNewUser).sort(), `race-${i}`).toEqual([false, true]);
      expect(pair[0].json.user.id).toBe(pair[1].json.user.id);
      raced++;
    });
    const { rows } = await t.db.pool.query(
      "SELECT count(*)::int AS n, count(DISTINCT third_party_user_id)::int AS ids FROM users WHERE third_party_user_id LIKE 'race-%'",
    );
    expect(rows[0]).toEqual({ n: pairsPerKind, ids: pairsPerKind });
    const verified = await t.db.pool.query("SELECT count(*)::int AS n FROM email_verifications WHERE email LIKE 'tp-%'");
    expect(verified.rows[0].n).toBe(pairsPerKind);
  });

  it(`concurrent mappings: one external id for two users, or two for one user: one wins (${pairsPerKind} pairs)`, async () => {
    const users = await Promise.all(
      Array.from(
        { length: pairsPerKind * 2 },
        async (_, i) =>
          (await send(t.app, '/recipe/user/passwordhash/import', { email: `map-${i}@example.com`, passwordHash: bcryptHash })).json.user
            .id as string,
      ),
    );
    await racePairs(pairsPerKind, async (i) => {
      const [first, second] = [users[2 * i], users[2 * i + 1]];
      const bodies =
        i % 2 === 0
          ? [
              { superTokensUserId: first, externalUserId: `ext-${i}` },
              { superTokensUserId: second, externalUserId: `ext-${i}` },
            ]
          : [
              { superTokensUserId: first, externalUserId: `ext-${i}-a` },
              { superTokensUserId: first, externalUserId: `ext-${i}-b` },
            ];
      const pair = await Promise.all(bodies.map((body) => send(t.app, '/recipe/userid/map', body)));
      expect(statuses(pair), `ext-${i}`).toEqual(['200 OK', '200 USER_ID_MAPPING_ALREADY_EXISTS_ERROR']);
      raced++;
    });
    const { rows } = await t.db.pool.query(
      "SELECT count(*)::int AS n, count(DISTINCT user_id)::int AS users FROM user_id_mappings WHERE external_user_id LIKE 'ext-%'",
    );
    expect(rows[0]).toEqual({ n: pairsPerKind, users: pairsPerKind });
  });

  // On PostgreSQL 15 each import's read-back of the user takes most of a second while the pairs race, so the
  // 167 pairs take 25–30 s there (2 s on the embedded server); the bound leaves room for a loaded machine.
  it(`same-email synchronous bulk imports: one 200, one E003 (${pairsPerKind} pairs)`, async () => {
    await racePairs(pairsPerKind, async (i) => {
      const user = (externalUserId: string) => ({
        externalUserId,
        loginMethods: [{ recipeId: 'emailpassword', email: `bulk-${i}@example.com`, passwordHash: bcryptHash, hashingAlgorithm: 'bcrypt' }],
      });
      const pair = await Promise.all([
        send(t.app, '/bulk-import/import', user(`bulk-a-${i}`)),
        send(t.app, '/bulk-import/import', user(`bulk-b-${i}`)),
      ]);
      expect(statuses(pair), `bulk-${i}`).toEqual([
        '200 OK',
        `400 ${JSON.stringify({ errors: [`E003: A user with email bulk-${i}@example.com already exists in emailpassword loginMethod.`] })}`,
      ]);
      raced++;
    });
    const { rows } = await t.db.pool.query("SELECT count(*)::int AS n FROM users WHERE email LIKE 'bulk-%'");
    expect(rows[0].n).toBe(pairsPerKind);
    const mappings = await t.db.pool.query("SELECT count(*)::int AS n FROM user_id_mappings WHERE external_user_id LIKE 'bulk-%'");
    expect(mappings.rows[0].n).toBe(pairsPerKind);
  }, 120_000);

  it('left no duplicate anywhere', async () => {
    const duplicates = await t.db.pool.query(`
      SELECT 'emailpassword' AS kind, email AS value FROM users WHERE recipe_id = 'emailpassword' GROUP BY tenant_id, email HAVING count(*) > 1
      UNION ALL SELECT 'passwordless', email FROM users WHERE recipe_id = 'passwordless' AND email IS NOT NULL GROUP BY tenant_id, email HAVING count(*) > 1
      UNION ALL SELECT 'thirdparty', third_party_user_id FROM users WHERE recipe_id = 'thirdparty' GROUP BY tenant_id, third_party_id, third_party_user_id HAVING count(*) > 1
      UNION ALL SELECT 'mapping', external_user_id FROM user_id_mappings GROUP BY external_user_id HAVING count(*) > 1`);
    expect(duplicates.rows).toEqual([]);
    expect(raced).toBe(pairsPerKind * kinds);
  });
});
