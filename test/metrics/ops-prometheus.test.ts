import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import bcrypt from 'bcrypt';
import { parse } from 'yaml';
import { call, useTestApp } from '../helper.js';
import { startMetricsServer, type MetricsServer } from '../../src/metrics/metrics-server.js';
import { formatLazyPointer } from '../../src/hashing/lazy-pointer.js';
import { bcryptHash, emailPasswordUser } from '../bulk-import/fixtures.js';
import { costlyHash } from '../hostile/support/core-process.js';
import { FakeProvider } from '../lazy-migration/fake-providers.js';
import { sourceEntry } from '../lazy-migration/sources.js';
import { FakeIssuer } from '../session-bridge/fake-issuer.js';
import { kindCases } from '../session-bridge/kinds.js';
import { sessionApi } from '../recipes/session/support.js';
import { exchange, importUser, seconds } from '../session-bridge/helpers.js';

// Every query of the Grafana dashboard and of the alert rules under ops/, run by a real Prometheus (Debian's
// package) that scrapes a core after a small migration: imports, lazy adoption, a session-bridge exchange, sign-ins,
// a session refresh and refused costly checks. scripts/check-ops.sh runs this file with PROMETHEUS set to the binary
// it unpacked; without a binary (PROMETHEUS or `prometheus` on the PATH) the file is skipped and says why.
const prometheusBinary =
  process.env.PROMETHEUS || (spawnSync('sh', ['-c', 'command -v prometheus'], { encoding: 'utf8' }).stdout.trim() ?? '');

const dashboard = JSON.parse(fs.readFileSync('ops/grafana/identity-core-cutover.json', 'utf8')) as {
  panels: { title: string; targets: { expr: string }[] }[];
};
const rules = parse(fs.readFileSync('ops/prometheus/alerts.yml', 'utf8')) as { groups: { rules: { alert: string; expr: string }[] }[] };
const panelQueries = dashboard.panels.flatMap((panel) => panel.targets.map((target) => ({ where: panel.title, expr: target.expr })));
const alertQueries = rules.groups.flatMap((group) => group.rules.map((rule) => ({ where: rule.alert, expr: rule.expr })));
const metricNames = (expr: string) => [...new Set([...expr.matchAll(/\b(identity_core_[a-z_]+)\b/g)].map(([, name]) => name))];

const alice = { login: 'alice@example.com', password: 'correct horse battery', id: 'old-alice' };

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

describe.skipIf(!prometheusBinary)('ops/: every dashboard and alert query on a real Prometheus scraping a core', () => {
  let fake: FakeProvider;
  let issuer: FakeIssuer;
  let metricsServer: MetricsServer;
  let prometheus: ChildProcess;
  let prometheusUrl: string;
  let prometheusLog = '';
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'identity-core-prometheus-'));
  const firebase = kindCases.find((kind) => kind.name === 'firebase')!;

  beforeAll(async () => {
    fake = await FakeProvider.start('webhook', [alice]);
    issuer = await FakeIssuer.start(firebase.alg);
  });
  const t = useTestApp(() => ({
    bulk_import_worker: false,
    // A loaded machine may take a while to answer; the breaker and timeout are not under test here.
    lazy_migration: { sources: { legacy: sourceEntry('webhook', fake.url, { timeout_ms: 10_000 }) } },
    session_bridge: { sources: { firebase: { ...firebase.source(issuer.jwksUrl), external_id_prefix: '' } } },
    // Guesses at one account queue behind each other; past this wait they are refused with 503.
    password_verification_deadline_ms: 300,
  }));

  async function query(expr: string): Promise<{ status: string; error?: string; data?: { result: unknown[] } }> {
    const response = await fetch(`${prometheusUrl}/api/v1/query?${new URLSearchParams({ query: expr })}`);
    return (await response.json()) as { status: string; error?: string; data?: { result: unknown[] } };
  }

  beforeAll(async () => {
    const app = t.app;
    const post = (url: string, body: unknown) => call(app, 'POST', url, { body });
    // Lazy migration: one user adopted on sign-in (the old provider confirms), one still pending.
    for (const email of [alice.login, 'pending@example.com']) {
      const reply = await post('/recipe/user/passwordhash/import', {
        email,
        passwordHash: formatLazyPointer({ source: 'legacy' }),
        hashingAlgorithm: 'lazy',
      });
      expect(reply.statusCode, reply.body).toBe(200);
    }
    const adopted = await post('/recipe/signin', { email: alice.login, password: alice.password });
    expect(adopted.json?.status, adopted.body).toBe('OK');
    // Bulk import: two users queued, one of which fails because its email was taken meanwhile.
    const queued = await post('/bulk-import/users', { users: [emailPasswordUser(1), emailPasswordUser(2)] });
    expect(queued.statusCode, queued.body).toBe(200);
    await post('/recipe/user/passwordhash/import', { email: 'user2@example.com', passwordHash: bcryptHash });
    await app.services.bulkImportWorker.processUntilEmpty();
    // Sign-ins on an imported bcrypt hash, right and wrong.
    await post('/recipe/user/passwordhash/import', { email: 'tour@example.com', passwordHash: await bcrypt.hash('the password', 4) });
    for (const password of ['the password', 'wrong password']) await post('/recipe/signin', { email: 'tour@example.com', password });
    // A session-bridge exchange of a token of the old provider for the user imported under its id.
    await importUser(app, 'bridged@example.com', 'old-bridged');
    const token = await issuer.mint(firebase.claims('old-bridged', seconds(t.clock.nowMs)));
    const exchanged = await exchange(app, 'firebase', token);
    expect(exchanged.statusCode, exchanged.body).toBe(200);
    // A session created and refreshed.
    const sessions = sessionApi(app);
    const session = await sessions.create();
    expect(session.json?.status, session.body).toBe('OK');
    const refresh = await sessions.refresh(session.json.refreshToken.token);
    expect(refresh.json?.status, refresh.body).toBe('OK');
    // Guesses at an account with a costly hash: the first holds the account's lane, the others wait past the
    // deadline and are refused with 503.
    await post('/recipe/user/passwordhash/import', { email: 'costly@example.com', passwordHash: bcryptHash });
    await t.db.pool.query('UPDATE users SET password_hash = $1 WHERE email = $2', [costlyHash.argon2(65_536, 24), 'costly@example.com']);
    const guess = (n: number) => post('/recipe/signin', { email: 'costly@example.com', password: `guess ${n}` });
    const first = guess(0);
    const started = Date.now();
    while (app.services.verificationScheduler.running === 0 && Date.now() - started < 10_000)
      await new Promise((resolve) => setTimeout(resolve, 5));
    const burst = await Promise.all([first, ...[1, 2, 3].map(guess)]);
    expect(
      burst.map((reply) => reply.statusCode),
      burst.map((reply) => reply.body).join(' | '),
    ).toContain(503);
    // Queue counts are cached for a few seconds of the app's clock.
    t.clock.advance(10_000);

    metricsServer = await startMetricsServer(app.metrics, 0, '127.0.0.1');
    const target = new URL(metricsServer.url);
    fs.writeFileSync(
      path.join(work, 'prometheus.yml'),
      `global: { scrape_interval: 1s, evaluation_interval: 1s }\n` +
        `scrape_configs:\n  - job_name: identity-core\n    metrics_path: ${target.pathname}\n` +
        `    static_configs: [{ targets: ['${target.host}'] }]\n`,
    );
    const port = await freePort();
    prometheusUrl = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      prometheusBinary,
      [
        `--config.file=${path.join(work, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(work, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout!.on('data', (chunk) => (prometheusLog += String(chunk)));
    prometheus.stderr!.on('data', (chunk) => (prometheusLog += String(chunk)));
    // Ready once Prometheus holds three scrapes of the core: enough for rate() over any window.
    for (let attempt = 0; ; attempt++) {
      const scrapes = await query('count_over_time(up{job="identity-core"}[5m])').catch(() => undefined);
      const count = Number((scrapes?.data?.result[0] as { value?: [number, string] } | undefined)?.value?.[1] ?? 0);
      if (count >= 3) break;
      if (attempt === 120 || prometheus.exitCode !== null)
        throw new Error(`Prometheus did not scrape the core:\n${prometheusLog.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const up = await query('up{job="identity-core"}');
    expect(up.data?.result, prometheusLog.slice(-2000)).toMatchObject([{ value: [expect.any(Number), '1'] }]);
  }, 120_000);

  afterAll(async () => {
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus.once('exit', resolve));
      prometheus.kill('SIGTERM');
      await exited;
    }
    await metricsServer?.close();
    await fake?.close();
    await issuer?.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it.each(panelQueries.map(({ where, expr }) => [where, expr]))('panel %s: returns data', async (_where, expr) => {
    const answer = await query(expr);
    expect(answer.status, answer.error).toBe('success');
    expect(answer.data!.result.length, expr).toBeGreaterThan(0);
  });

  it.each(alertQueries.map(({ where, expr }) => [where, expr]))(
    'alert %s: Prometheus accepts it and holds series of every metric it names',
    async (_where, expr) => {
      const answer = await query(expr);
      expect(answer.status, answer.error).toBe('success');
      const missing: string[] = [];
      for (const name of metricNames(expr)) if ((await query(`count(${name})`)).data?.result.length !== 1) missing.push(name);
      expect(missing).toEqual([]);
    },
  );
});
