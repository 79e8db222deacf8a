// CPU per request of the five requests supertokens-node sends to the core on every email-password sign-in, by
// process (the core, its PostgreSQL backends) and by statement, for one or more builds of the core alternated.
// The requests are recorded once, through a proxy, as bench/apps/sdk-app.mjs signs in, then replayed one kind at a
// time (`--concurrency` in flight) against each build in turn, `--rounds` times.
// Usage: npm run bench:sdk-signin-cpu -- [--reps=N] [--rounds=N] [--concurrency=N] [--core-script=PATH]...
//   [--only=TEXT] (replay only the requests whose path contains TEXT) [--cpu-prof] (each core writes a V8 profile to
//   bench/results/profiles/ when it stops; read it with bench/tools/profile-summary.ts)
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import bcrypt from 'bcrypt';
import { startSdkApp } from '../lib/apps.js';
import { measureCpu, withApplicationName } from '../lib/cpu-accounting.js';
import { makeCredentials } from '../lib/credentials.js';
import { SchemaRegistry } from '../lib/schemas.js';
import { seedExistingUsers } from '../lib/seed.js';
import { benchSignerKey, coreScript, poolSize } from '../lib/servers.js';
import { freePort, startServer, type ServerProcess } from '../lib/server-process.js';
import { defaultDatabaseUrl } from '../lib/settings.js';
import { median } from '../lib/stats.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const option = (name: string, fallback: number) =>
  Number(process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const reps = option('reps', 200);
const rounds = option('rounds', 3);
const concurrency = option('concurrency', 4);
const scripts = process.argv.filter((arg) => arg.startsWith('--core-script=')).map((arg) => path.resolve(arg.split('=')[1]));
if (scripts.length === 0) scripts.push(coreScript);
const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
const profileDir = process.argv.includes('--cpu-prof') ? path.join(root, 'bench/results/profiles') : undefined;
const databaseUrl = process.env.DATABASE_URL || defaultDatabaseUrl;

interface Recorded {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}
type Totals = Record<string, { calls: number; ms: number }>;

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function send(base: string, request: Recorded): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      `${base}${request.path.split('#')[0]}`,
      { method: request.method, headers: request.headers, agent },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

/** A proxy in front of the core that keeps every request the SDK sends through it. */
async function recordingProxy(target: string): Promise<{ url: string; taken: Recorded[]; close: () => void }> {
  const taken: Recorded[] = [];
  const server = http.createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name)) headers[name] = value;
      }
      const recorded = {
        method: incoming.method!,
        path: incoming.url!,
        headers,
        body: chunks.length ? Buffer.concat(chunks).toString() : undefined,
      };
      taken.push(recorded);
      void send(target, recorded).then(({ status, body }) => {
        outgoing.writeHead(status, { 'content-type': 'application/json' });
        outgoing.end(body);
      });
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}`, taken, close: () => server.close() };
}

async function startCoreWithLog(
  script: string,
  schema: string,
  label: string,
): Promise<{ core: ServerProcess; statements: () => Promise<Totals> }> {
  const port = await freePort();
  const applicationName = `bench-core-${port}`;
  const logFile = path.join(os.tmpdir(), `statements-${port}-${crypto.randomBytes(3).toString('hex')}.json`);
  const emptyConfig = path.join(os.tmpdir(), `empty-${port}.yaml`);
  fs.writeFileSync(emptyConfig, '');
  const core = await startServer({
    name: `core ${label}`,
    script,
    args: [`--config=${emptyConfig}`],
    nodeArgs: [
      '--import',
      path.join(root, 'bench/tools/statement-log.mjs'),
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=sdk-signin-${label}-${Date.now()}.cpuprofile`] : []),
    ],
    port,
    applicationName,
    env: {
      DATABASE_URL: withApplicationName(databaseUrl, applicationName),
      POSTGRESQL_TABLE_SCHEMA: schema,
      POSTGRESQL_CONNECTION_POOL_SIZE: String(poolSize),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'WARN',
      IDP_PASSWORD_HASHING_SIGNER_KEY: benchSignerKey,
      BCRYPT_LOG_ROUNDS: '10',
      STATEMENT_LOG: logFile,
    },
  });
  const statements = async (): Promise<Totals> => {
    fs.rmSync(logFile, { force: true });
    process.kill(core.pid, 'SIGUSR2');
    for (let wait = 0; wait < 200 && !fs.existsSync(logFile); wait++) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 20));
    return JSON.parse(fs.readFileSync(logFile, 'utf8')) as Totals;
  };
  return { core, statements };
}

function diff(after: Totals, before: Totals): Totals {
  const result: Totals = {};
  for (const [key, value] of Object.entries(after)) {
    const calls = value.calls - (before[key]?.calls ?? 0);
    if (calls > 0) result[key] = { calls, ms: value.ms - (before[key]?.ms ?? 0) };
  }
  return result;
}

/** CPU of one bcrypt check of this credential in this process (the thread pool's time included), median of five runs. */
async function checkCpuMs(credential: { password: string; hash: string }, perRun: number): Promise<number> {
  const runs: number[] = [];
  for (let run = 0; run < 5; run++) {
    const before = process.cpuUsage();
    for (let index = 0; index < perRun; index++) await bcrypt.compare(credential.password, credential.hash);
    const used = process.cpuUsage(before);
    runs.push((used.user + used.system) / perRun / 1000);
  }
  return median(runs);
}

async function main(): Promise<void> {
  if (profileDir) fs.mkdirSync(profileDir, { recursive: true });
  const schemas = new SchemaRegistry(databaseUrl);
  const cores: Array<{ script: string; core: ServerProcess; statements: () => Promise<Totals> }> = [];
  try {
    const credentials = await makeCredentials('bcrypt', 4, 1, 'cpu');
    // The same password under bcrypt cost 4 (64 times cheaper than 10): its sign-in measures the route around the
    // check, the check's own CPU (measured here in this process) taken out with an error 64 times smaller.
    const cheap = {
      email: 'cheap-check@bench.example',
      password: credentials[0].password,
      hash: await bcrypt.hash(credentials[0].password, 4),
    };
    credentials.push(cheap);
    const userIds = credentials.map(() => crypto.randomUUID());
    for (const [index, script] of scripts.entries()) {
      const { schema, pool } = await schemas.migrated(`cpu_${index}`);
      await seedExistingUsers(pool, 50_000);
      // The same ids in every schema: the recorded requests name them.
      await pool.query(
        `INSERT INTO users (user_id, tenant_id, recipe_id, time_joined, email, password_hash)
         SELECT id, 'public', 'emailpassword', 1, email, hash FROM unnest($1::text[], $2::text[], $3::text[]) AS t(id, email, hash)`,
        [userIds, credentials.map((c) => c.email), credentials.map((c) => c.hash)],
      );
      await pool.query('ANALYZE users, user_ids, user_groups, login_method_tenants');
      await pool.end();
      cores.push({ script, ...(await startCoreWithLog(script, schema, String(index))) });
    }
    // The SDK's requests, recorded once against the first build.
    const proxy = await recordingProxy(cores[0].core.url);
    const app = await startSdkApp(proxy.url);
    const signin = await fetch(`${app.url}/auth/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'st-auth-mode': 'header' },
      body: JSON.stringify({
        formFields: [
          { id: 'email', value: credentials[0].email },
          { id: 'password', value: credentials[0].password },
        ],
      }),
    });
    if (!(await signin.text()).includes('"status":"OK"')) throw new Error('the SDK app did not sign in');
    await app.stop();
    proxy.close();
    const sdkRequests = proxy.taken.filter((request) => !request.path.startsWith('/apiversion') && (!only || request.path.includes(only)));
    const recordedSignin = sdkRequests.find((request) => request.path.includes('/recipe/signin'));
    const cheapSignin = recordedSignin && {
      ...recordedSignin,
      path: `${recordedSignin.path}#cost-4`,
      body: JSON.stringify({ ...(JSON.parse(recordedSignin.body!) as object), email: cheap.email }),
    };
    const replayed = cheapSignin ? [...sdkRequests, cheapSignin] : sdkRequests;
    console.log(`the SDK sent ${proxy.taken.length} requests: ${proxy.taken.map((r) => `${r.method} ${r.path.split('?')[0]}`).join(', ')}`);

    const bcryptMs = await checkCpuMs(credentials[0], 10);
    const cheapCheckMs = await checkCpuMs(cheap, 200);
    console.log(
      `one bcrypt-10 check: ${bcryptMs.toFixed(2)} ms CPU in this process, one bcrypt-4 check ${cheapCheckMs.toFixed(3)} ms; load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );

    type Figure = { coreMs: number[]; databaseMs: number[]; statements: Totals[] };
    const figures = new Map<string, Figure>();
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? cores : [...cores].reverse();
      for (const [index, { script, core, statements }] of order.entries()) {
        for (const request of replayed) {
          const name = `${request.method} ${request.path.split('?')[0]}`;
          // Sign-ins one at a time: identical verifications in flight together share one hash computation.
          const signin = request.path.includes('/recipe/signin');
          const count = signin && request !== cheapSignin ? Math.max(20, Math.round(reps / 10)) : reps;
          const inFlight = signin ? 1 : concurrency;
          // Warm-up: the named statements prepared, the JIT settled.
          for (let warm = 0; warm < 20; warm++) await send(core.url, request);
          const before = await statements();
          const { cpu } = await measureCpu(databaseUrl, core.pid, core.applicationName, async () => {
            let next = 0;
            await Promise.all(
              Array.from({ length: inFlight }, async () => {
                while (next < count) {
                  next++;
                  const { status, body } = await send(core.url, request);
                  if (status !== 200 || !body.includes('"status":"OK"'))
                    throw new Error(`${name} answered ${status} ${body.slice(0, 200)}`);
                }
              }),
            );
          });
          const after = await statements();
          const key = `${script}\t${name}`;
          const figure = figures.get(key) ?? { coreMs: [], databaseMs: [], statements: [] };
          figure.coreMs.push(cpu.processMs / count);
          figure.databaseMs.push(cpu.databaseMs / count);
          const per = diff(after, before);
          for (const value of Object.values(per)) {
            value.calls /= count;
            value.ms /= count;
          }
          figure.statements.push(per);
          figures.set(key, figure);
        }
        void index;
      }
      console.error(`round ${round + 1} done, load ${os.loadavg()[0].toFixed(1)}`);
    }
    for (const { script } of cores) {
      console.log(`\n## ${path.relative(root, script)}\n`);
      console.log('| Request | core CPU ms (rounds) | PostgreSQL CPU ms (rounds) | statements (round trips) per request |');
      console.log('|---|---|---|---|');
      let coreSum = 0;
      let databaseSum = 0;
      let cheapMs: number | undefined;
      for (const request of replayed) {
        const name = `${request.method} ${request.path.split('?')[0]}`;
        const figure = figures.get(`${script}\t${name}`)!;
        if (request === cheapSignin) {
          cheapMs = median(figure.coreMs);
          console.log(
            `| ${name} (not sent by the SDK: the same sign-in, bcrypt cost 4) | ${median(figure.coreMs).toFixed(3)} (${figure.coreMs.map((v) => v.toFixed(2)).join(', ')}) | ${median(figure.databaseMs).toFixed(3)} | |`,
          );
          continue;
        }
        const last = figure.statements.at(-1)!;
        const total = Object.values(last).reduce((sum, value) => sum + value.calls, 0);
        coreSum += median(figure.coreMs);
        databaseSum += median(figure.databaseMs);
        const list = (values: number[]) => `${median(values).toFixed(3)} (${values.map((v) => v.toFixed(2)).join(', ')})`;
        console.log(`| ${name} | ${list(figure.coreMs)} | ${list(figure.databaseMs)} | ${total.toFixed(2)} |`);
        for (const [text, value] of Object.entries(last))
          console.log(`|   | | | ${value.calls.toFixed(2)} × ${value.ms.toFixed(3)} ms: \`${text.slice(0, 110)}\` |`);
      }
      console.log(
        `\nsum of medians: core ${coreSum.toFixed(2)} ms (beyond one bcrypt check ${(coreSum - bcryptMs).toFixed(2)} ms), PostgreSQL ${databaseSum.toFixed(2)} ms`,
      );
      if (cheapMs !== undefined) {
        const signinName = `${recordedSignin!.method} ${recordedSignin!.path.split('?')[0]}`;
        const others = coreSum - median(figures.get(`${script}\t${signinName}`)!.coreMs);
        const route = cheapMs - cheapCheckMs;
        console.log(
          `beyond the check, from the bcrypt-4 sign-in: the sign-in route ${route.toFixed(2)} ms (${cheapMs.toFixed(3)} − ${cheapCheckMs.toFixed(3)}) + the other requests ${others.toFixed(2)} ms = **${(route + others).toFixed(2)} ms** of core CPU per SDK sign-in`,
        );
      }
    }
  } finally {
    for (const { core } of cores) await core.stop();
    await schemas.dropAll();
    agent.destroy();
  }
}

await main();
