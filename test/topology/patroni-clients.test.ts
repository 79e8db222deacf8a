import crypto from 'node:crypto';
import bcrypt from 'bcrypt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientLoad, storedRefreshHash, type ClientAnswer } from './client-load.js';
import { startCoreProcess, type CoreProcess } from './core-process.js';
import { missingStackBinaries, onNode, startPatroniStack, type PatroniStack } from './patroni-stack.js';
import { startPgBouncer, type PgBouncer } from './pgbouncer.js';
import { waitUntil } from './ports.js';

// The deployment of docs/operations.md on loopback: three core processes, all through one PgBouncer in transaction
// mode, in front of HAProxy, in front of two PostgreSQL 15 servers run by Patroni (etcd) in synchronous mode. A
// bounded load of clients (sign-ins of users imported before, password-hash imports, session creates, a refresh
// chain each) runs while the primary's PostgreSQL is killed; Patroni promotes the synchronous standby and the same
// cores carry on. Every answer is 200 or 503 + Retry-After, every write answered 200 is on the promoted server,
// and every refresh chain goes on without a theft report.
const missing = missingStackBinaries();
const schema = 'identity';
const configuredWaitMs = { connection: 2000, query: 10_000 };
// PgBouncer holds a query up to its query_wait_timeout (10 s) while it cannot reach a server.
const slowestAllowedMs = configuredWaitMs.query + configuredWaitMs.connection + 3000;
const password = 'imported password';
const graceMs = 30_000;
const clients = 6;
const rounds = 40;
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
  bouncer = await startPgBouncer({
    serverUrl: `postgresql://postgres@127.0.0.1:${stack.haproxyPort}/postgres`,
    poolMode: 'transaction',
    poolSize: 10,
  });
  const env = {
    DATABASE_URL: bouncer.url,
    POSTGRESQL_POOL_MODE: 'transaction',
    POSTGRESQL_TABLE_SCHEMA: schema,
    POSTGRESQL_CONNECTION_POOL_SIZE: '6',
    POSTGRESQL_CONNECTION_TIMEOUT_MS: String(configuredWaitMs.connection),
    POSTGRESQL_QUERY_TIMEOUT_MS: String(configuredWaitMs.query),
    REFRESH_TOKEN_ROTATION_GRACE_PERIOD: String(graceMs / 1000),
    BCRYPT_LOG_ROUNDS: '4',
    LOG_LEVEL: 'INFO',
  };
  // Started together: one migrates the schema under the advisory lock, the others find it migrated. Each is kept
  // as soon as it serves, so that afterAll stops it even when another fails to start.
  await Promise.all([0, 1, 2].map(async (index) => (cores[index] = await startCoreProcess(env))));
  passwordHash = await bcrypt.hash(password, 4);
  console.info(
    `stack up (synchronous standby streaming) in ${stackUpAt - startedAt} ms, three cores serving ${Date.now() - stackUpAt} ms later`,
  );
}, 180_000);

afterAll(async () => {
  await Promise.all(cores.map((core) => core?.stop()));
  await bouncer?.stop();
  await stack?.stop();
}, 60_000);

const unavailable = /^The database is (unavailable|busy), retry after 1 seconds\n?$/;
const summary = ({ client, core, kind, status, retryAfter, body }: ClientAnswer) => ({ client, core, kind, status, retryAfter, body });

describe.skipIf(missing.length > 0)('Patroni with three cores through PgBouncer under a bounded client load', () => {
  it("the primary's PostgreSQL killed mid-load: the standby is promoted, nothing acknowledged is lost, no chain ends", async () => {
    const { leader, standby } = await stack.waitForSyncStandby(90_000);
    const prefix = `clients-${crypto.randomBytes(3).toString('hex')}`;
    const cores3 = cores.map((core) => core.url);

    // Users to sign in, imported (and so on the synchronous standby) before the load.
    const signInEmails: string[] = [];
    for (let i = 0; i < 12; i++) {
      const email = `${prefix}-known${i}@example.com`;
      const answer = await fetch(`${cores3[i % 3]}/recipe/user/passwordhash/import`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, passwordHash }),
      });
      expect(answer.status).toBe(200);
      signInEmails.push(email);
    }
    const load = new ClientLoad({
      cores: cores3,
      prefix,
      passwordHash,
      password,
      signInEmails,
      clients,
      rounds,
      // A refresh is sent again with the same token only while the core would accept it again (its grace period,
      // counted from the first attempt, less a margin); any other request for as long.
      refreshRetryMs: graceMs - 5000,
      retryMs: graceMs - 5000,
    });
    await load.createChains();
    const loadStartedAt = Date.now();
    const running = load.run();

    // A quarter of the rounds done, on every core, before the fall, however slow the machine.
    await waitUntil('a quarter of the load done', 60_000, () => load.roundsDone >= (clients * rounds) / 4);
    stack.killPostgres(leader);
    const fellAt = Date.now();
    await waitUntil('the standby promoted', 60_000, async () => (await stack.leader())?.name === standby.name);
    const promotedAt = Date.now();
    await running;
    const doneAt = Date.now();

    const { answers, acknowledged, chains } = load;
    // No restart: the processes that started are the ones still serving.
    expect(cores.map((core) => core.running())).toEqual([true, true, true]);
    // Every answer was 200, or 503 with Retry-After naming the database; none hung past the configured waits.
    const wrong = answers.filter(
      (answer) => answer.status !== 200 && !(answer.status === 503 && answer.retryAfter === '1' && unavailable.test(answer.body)),
    );
    expect(wrong.map(summary)).toEqual([]);
    const slowest = Math.max(...answers.map((answer) => answer.at - answer.startedAt));
    expect(slowest).toBeLessThan(slowestAllowedMs);
    // The load went on through the fall and after the promotion on every core, and every request got its 200.
    expect(answers.filter((answer) => answer.at > fellAt && answer.startedAt < promotedAt).length).toBeGreaterThan(0);
    expect(
      cores3.map((_, core) => answers.some((answer) => answer.core === core && answer.status === 200 && answer.startedAt > promotedAt)),
    ).toEqual([true, true, true]);
    expect(load.gaveUp).toEqual([]);
    expect(load.failedSignIns).toEqual([]);
    expect(chains.filter((chain) => chain.broken).map((chain) => chain.broken)).toEqual([]);
    expect(acknowledged.imports.length).toBe(clients * rounds);
    expect(acknowledged.signIns).toBe(clients * rounds);

    // Every write answered 200 is on the promoted server, read there directly: users, sessions, and each chain's
    // last rotation (the stored hash is that of the token the client holds).
    const stored = await onNode(standby, async (client) => {
      const count = async (sql: string, values: unknown[]) => (await client.query<{ n: number }>(sql, values)).rows[0].n;
      const chainRows = await client.query<{ session_handle: string; refresh_token_hash_2: string }>(
        `SELECT session_handle, refresh_token_hash_2 FROM ${schema}.session_info WHERE session_handle = ANY($1)`,
        [chains.map((chain) => chain.handle)],
      );
      return {
        recovery: (await client.query<{ r: boolean }>('SELECT pg_is_in_recovery() AS r')).rows[0].r,
        users: await count(`SELECT count(*)::int AS n FROM ${schema}.users WHERE email = ANY($1)`, [
          [...signInEmails, ...acknowledged.imports],
        ]),
        sessions: await count(`SELECT count(*)::int AS n FROM ${schema}.session_info WHERE session_handle = ANY($1)`, [
          acknowledged.sessions,
        ]),
        chains: chains.map((chain) => chainRows.rows.find((row) => row.session_handle === chain.handle)?.refresh_token_hash_2),
      };
    });
    expect(stored).toEqual({
      recovery: false,
      users: signInEmails.length + acknowledged.imports.length,
      sessions: acknowledged.sessions.length,
      chains: chains.map((chain) => storedRefreshHash(chain.token)),
    });
    // Every refresh chain goes on, on each core in turn.
    for (const chain of chains.keys()) {
      for (const core of cores3.keys()) {
        const reply = await load.refreshOn(chain, core);
        expect([reply.status, (JSON.parse(reply.body) as { status: string }).status]).toEqual([200, 'OK']);
        chains[chain].token = (JSON.parse(reply.body) as { refreshToken: { token: string } }).refreshToken.token;
      }
    }

    const firstServedAfter = (own: ClientAnswer[]) =>
      own.filter((answer) => answer.status === 200 && answer.startedAt > fellAt).sort((a, b) => a.at - b.at)[0];
    const perCore = cores3.map((_, core) => {
      const own = answers.filter((answer) => answer.core === core && answer.at <= doneAt);
      const served = firstServedAfter(own);
      return `core ${core + 1} ${own.filter((answer) => answer.status === 503).length} × 503, first 200 of a request sent after the kill ${served.at - fellAt} ms after it`;
    });
    const during = answers.filter((answer) => answer.at >= fellAt && answer.at <= doneAt);
    const firstServed = firstServedAfter(answers);
    const byKind = (['signin', 'import', 'session', 'refresh'] as const)
      .map((kind) => {
        const own = answers.filter((answer) => answer.kind === kind && answer.startedAt >= loadStartedAt && answer.at <= doneAt);
        return `${kind} ${own.filter((a) => a.status === 200).length} × 200, ${own.filter((a) => a.status === 503).length} × 503`;
      })
      .join('; ');
    console.info(
      `${leader.name}'s PostgreSQL killed, ${standby.name} promoted ${promotedAt - fellAt} ms after; first 200 of a request sent after the kill ` +
        `${firstServed.at - fellAt} ms after the kill; ${during.length} answers from the kill to the end of the load; ${perCore.join('; ')}; by kind: ${byKind}; ` +
        `slowest ${slowest} ms; acknowledged and found: ${acknowledged.imports.length} imports, ${acknowledged.sessions.length} sessions, ` +
        `${acknowledged.refreshes} refreshes over ${chains.length} chains, ${acknowledged.signIns} sign-ins`,
    );
  }, 150_000);
});
