import crypto from 'node:crypto';
import bcrypt from 'bcrypt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCoreProcess, type CoreProcess } from './core-process.js';
import { missingStackBinaries, onNode, startPatroniStack, type PatroniNode, type PatroniStack } from './patroni-stack.js';
import { startPgBouncer, type PgBouncer } from './pgbouncer.js';
import { sleep, waitUntil } from './ports.js';
import { WriteLoad, type Answer } from './write-load.js';

// The production shape on loopback: Patroni (etcd) runs two PostgreSQL 15 servers in synchronous mode, HAProxy sends
// connections to the node whose Patroni answers 200 on /primary, and two core processes write through it, one through
// PgBouncer in transaction mode, one straight to HAProxy. Under a write load the primary is lost twice: first its
// PostgreSQL crashes (Patroni fails over instead of restarting it), then, once the old primary is back as the
// synchronous standby, the new primary's whole node dies (its leader key lapses after the ttl). Each time the same
// cores carry on without a restart, every answer is 200 or 503 + Retry-After, every write answered 200 is on the new
// primary, and every refresh chain goes on without a theft report.
const missing = missingStackBinaries();
const schema = 'identity';
const configuredWaitMs = { connection: 2000, query: 10_000 };
let stack: PatroniStack;
let bouncer: PgBouncer;
const cores: CoreProcess[] = [];
let passwordHash: string;

beforeAll(async () => {
  if (missing.length > 0) return;
  const startedAt = Date.now();
  stack = await startPatroniStack();
  await stack.waitForSyncStandby(90_000);
  const stackUpAt = Date.now();
  const haproxyUrl = `postgresql://postgres@127.0.0.1:${stack.haproxyPort}/postgres`;
  bouncer = await startPgBouncer({ serverUrl: haproxyUrl, poolMode: 'transaction', poolSize: 10 });
  const env = {
    POSTGRESQL_TABLE_SCHEMA: schema,
    POSTGRESQL_CONNECTION_POOL_SIZE: '8',
    POSTGRESQL_CONNECTION_TIMEOUT_MS: String(configuredWaitMs.connection),
    POSTGRESQL_QUERY_TIMEOUT_MS: String(configuredWaitMs.query),
    BCRYPT_LOG_ROUNDS: '4',
    LOG_LEVEL: 'INFO',
  };
  // Started together: one migrates the schema under the advisory lock, the other finds it migrated. Each is kept
  // as soon as it serves, so that afterAll stops it even when the other fails to start.
  await Promise.all([
    (async () => (cores[0] = await startCoreProcess({ ...env, DATABASE_URL: bouncer.url, POSTGRESQL_POOL_MODE: 'transaction' })))(),
    (async () => (cores[1] = await startCoreProcess({ ...env, DATABASE_URL: haproxyUrl, POSTGRESQL_POOL_MODE: 'session' })))(),
  ]);
  passwordHash = await bcrypt.hash('imported password', 4);
  console.info(`stack up (synchronous standby streaming) in ${stackUpAt - startedAt} ms, cores serving ${Date.now() - stackUpAt} ms later`);
}, 180_000);

afterAll(async () => {
  await Promise.all(cores.map((core) => core?.stop()));
  await bouncer?.stop();
  await stack?.stop();
}, 60_000);

const unavailable = /^The database is (unavailable|busy), retry after 1 seconds\n?$/;

/** Per core: when the last answer other than 200 came, and the first 200 after it. */
function recovery(answers: Answer[], core: number, fellAt: number) {
  const own = answers.filter((answer) => answer.core === core);
  const failures = own.filter((answer) => answer.status !== 200);
  const lastFailure = Math.max(fellAt, ...failures.map((answer) => answer.at));
  const served = own.find((answer) => answer.status === 200 && answer.at > lastFailure);
  return { failures: failures.length, servedAfterMs: served ? served.at - fellAt : undefined };
}

async function failover(name: string, kill: (leader: PatroniNode) => void): Promise<string> {
  const { leader, standby } = await stack.waitForSyncStandby(90_000);
  const load = new WriteLoad(
    cores.map((core) => core.url),
    `${name}-${crypto.randomBytes(3).toString('hex')}`,
    passwordHash,
  );
  await load.createChains(4);
  load.start();
  // Under way on both cores before the fall, however slow the machine.
  await waitUntil('both cores under load', 60_000, () =>
    cores.every((_, core) => load.answers.filter((answer) => answer.core === core && answer.status === 200).length >= 10),
  );
  kill(leader);
  const fellAt = Date.now();
  let promotedAt = 0;
  try {
    await waitUntil('the standby promoted', 60_000, async () => (await stack.leader())?.name === standby.name);
    promotedAt = Date.now();
    await waitUntil('both cores serving', 60_000, () =>
      cores.every((_, core) =>
        load.answers.some((answer) => answer.core === core && answer.status === 200 && answer.startedAt > promotedAt),
      ),
    );
    await sleep(3000);
  } finally {
    await load.stop();
  }

  const { answers, acknowledged } = load;
  expect(answers.filter((answer) => answer.at > fellAt).length).toBeGreaterThan(10);
  // No restart: the processes that started are the ones still serving.
  expect(cores.map((core) => core.running())).toEqual([true, true]);
  // Every answer was 200, or 503 with Retry-After naming the database; none hung past the configured waits.
  const wrong = answers.filter(
    (answer) => answer.status !== 200 && !(answer.status === 503 && answer.retryAfter === '1' && unavailable.test(answer.body)),
  );
  expect(wrong.map(({ core, kind, status, body }) => ({ core, kind, status, body }))).toEqual([]);
  const slowest = Math.max(...answers.map((answer) => answer.at - answer.startedAt));
  expect(slowest).toBeLessThan(configuredWaitMs.query + configuredWaitMs.connection + 3000);
  // Served again: the last second of the load was all 200 on both cores.
  const stoppedAt = Math.max(...answers.map((answer) => answer.at));
  expect(answers.filter((answer) => answer.startedAt > stoppedAt - 1000 && answer.status !== 200)).toEqual([]);

  // Every write answered 200 is on the new primary.
  const stored = await onNode(standby, async (client) => {
    const count = async (sql: string, values: unknown[]) => (await client.query<{ n: number }>(sql, values)).rows[0].n;
    return {
      recovery: (await client.query<{ r: boolean }>('SELECT pg_is_in_recovery() AS r')).rows[0].r,
      emails: await count(`SELECT count(*)::int AS n FROM ${schema}.users WHERE email = ANY($1)`, [acknowledged.emails]),
      externalIds: await count(`SELECT count(*)::int AS n FROM ${schema}.user_id_mappings WHERE external_user_id = ANY($1)`, [
        acknowledged.externalIds,
      ]),
      sessions: await count(`SELECT count(*)::int AS n FROM ${schema}.session_info WHERE session_handle = ANY($1)`, [
        acknowledged.sessions,
      ]),
    };
  });
  expect(stored).toEqual({
    recovery: false,
    emails: acknowledged.emails.length,
    externalIds: acknowledged.externalIds.length,
    sessions: acknowledged.sessions.length,
  });
  // Every refresh chain goes on, on either core: no rotation acknowledged before the fall was lost.
  for (const chain of load.chains.keys()) {
    for (const core of cores.keys()) {
      const reply = await load.refresh(chain, core);
      expect([reply.status, (JSON.parse(reply.body) as { status: string }).status]).toEqual([200, 'OK']);
    }
  }

  const perCore = cores.map((_, core) => recovery(answers, core, fellAt));
  const count = (status: number) => answers.filter((answer) => answer.status === status).length;
  return (
    `${name}: ${leader.name} lost, ${standby.name} promoted ${promotedAt - fellAt} ms after; ` +
    perCore
      .map(
        ({ failures, servedAfterMs }, core) =>
          `core ${core + 1} (${core === 0 ? 'PgBouncer' : 'HAProxy'}) ${failures} × 503, served again ${servedAfterMs} ms after the fall`,
      )
      .join('; ') +
    `; ${answers.length} answers (${count(200)} × 200, ${count(503)} × 503), slowest ${slowest} ms; acknowledged and found: ` +
    `${acknowledged.emails.length} users (${acknowledged.externalIds.length} bulk), ${acknowledged.sessions.length} sessions, ` +
    `${acknowledged.refreshes} refreshes over ${load.chains.length} chains`
  );
}

describe.skipIf(missing.length > 0)('Patroni, etcd and HAProxy with two cores under a write load', () => {
  it('a crashed primary PostgreSQL: Patroni fails over to the synchronous standby', async () => {
    console.info(await failover('crash', (leader) => stack.killPostgres(leader)));
  }, 150_000);

  it('the primary node lost (Patroni and PostgreSQL killed): the standby takes over when the leader key lapses', async () => {
    console.info(await failover('node-loss', (leader) => stack.killNode(leader)));
  }, 150_000);
});
