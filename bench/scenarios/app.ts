import bcrypt from 'bcrypt';
import type { Request } from 'autocannon';
import {
  coreCalls,
  protectedRequests,
  refreshRequests,
  signIn,
  signinAnswered,
  signinRequests,
  type AppKind,
  type HeldSession,
} from '../lib/app-requests.js';
import { describeAppCpu, withAppCpu, type AppSide, type AppTimed } from '../lib/app-cpu.js';
import { insertBetterAuthUsers, startBetterAuthApp, startSdkApp } from '../lib/apps.js';
import { makeCredentials, type Credential } from '../lib/credentials.js';
import { isOk, runLoad } from '../lib/load.js';
import { loadFigure, spreadNote, type Row } from '../lib/report.js';
import { alternate } from '../lib/rounds.js';
import type { BenchContext, Scenario } from '../lib/scenario.js';
import { insertEmailPasswordUsers } from '../lib/seed.js';
import { median } from '../lib/stats.js';

const users = 128;
// BENCH_APP_OPERATIONS=refresh (comma-separated: signin, protected, refresh) measures only those.
const selected = (name: string) => {
  const only = process.env.BENCH_APP_OPERATIONS;
  return !only || only.split(',').includes(name);
};
const signinConnections = 8;
const sessionConnections = 32;

interface Sides {
  sdk: AppSide;
  library: AppSide;
}

interface Operation {
  name: string;
  label: string;
  goal: string;
  minimum: number;
  connections: number;
  requests: (kind: AppKind) => Request[];
  verifyBody?: (kind: AppKind) => ((body: string) => boolean) | undefined;
  /** A request that answers only after the ones still queued (see withAppCpu). */
  drain?: (kind: AppKind) => Promise<unknown>;
}

/** CPU of one bcrypt-10 check in this process (the thread pool's time included), median of three runs of ten. */
async function bcryptCheckUs(credential: Credential): Promise<number> {
  const runs: number[] = [];
  for (let run = 0; run < 3; run++) {
    const before = process.cpuUsage();
    for (let index = 0; index < 10; index++) await bcrypt.compare(credential.password, credential.hash);
    const used = process.cpuUsage(before);
    runs.push((used.user + used.system) / 10);
  }
  return median(runs);
}

async function measure(context: BenchContext, sides: Sides, operation: Operation, extraNotes: (sdk: AppTimed) => Promise<string[]>) {
  const { settings, log } = context;
  log(` ${operation.label}`);
  const run = (kind: AppKind) => () =>
    withAppCpu(
      settings.databaseUrl,
      sides[kind],
      () =>
        runLoad({
          url: sides[kind].app.url,
          connections: operation.connections,
          seconds: settings.seconds,
          maxRequests: settings.seconds * 50_000,
          requests: operation.requests(kind),
          verifyBody: operation.verifyBody ? operation.verifyBody(kind) : isOk,
        }),
      operation.drain && (() => operation.drain!(kind)),
    );
  const library: AppTimed[] = [];
  const sdk: AppTimed[] = [];
  const paired = await alternate(
    settings.rounds,
    async () => {
      const result = await run('library')();
      library.push(result);
      return result;
    },
    async () => {
      const result = await run('sdk')();
      sdk.push(result);
      return result;
    },
    log,
  );
  const medianCpu = (results: AppTimed[], key: keyof AppTimed['cpu']) => median(results.map((result) => result.cpu[key]));
  const cpuOf = (results: AppTimed[]) => ({
    appUs: medianCpu(results, 'appUs'),
    coreUs: medianCpu(results, 'coreUs'),
    databaseUs: medianCpu(results, 'databaseUs'),
    totalUs: medianCpu(results, 'totalUs'),
  });
  const sdkCpu = cpuOf(sdk);
  const libraryCpu = cpuOf(library);
  const failures = [...sdk, ...library].reduce((sum, result) => sum + result.failures, 0);
  const core = { ...loadFigure(paired.core, 'req/s', sides.sdk.core!.peakRssMb()), cpuUs: sdkCpu.totalUs };
  const ceiling = { ...loadFigure(paired.ceiling, 'req/s', sides.library.app.peakRssMb()), cpuUs: libraryCpu.totalUs };
  const notes = [
    spreadNote(paired.pairs),
    `CPU per request (medians of the rounds): ${describeAppCpu('supertokens-node + core', sdkCpu)}; ${describeAppCpu('better-auth', libraryCpu)}`,
    ...(await extraNotes(paired.core)),
  ];
  for (const [label, results] of [
    ['supertokens-node + core', sdk],
    ['better-auth', library],
  ] as const) {
    const failed = results.reduce((sum, result) => sum + result.failures, 0);
    if (failed > 0)
      notes.push(`${label}: ${failed} failed requests (${results.map((result) => JSON.stringify(result.statusCounts)).join(', ')})`);
  }
  return {
    scenario: `app-${operation.name}`,
    path: operation.label,
    status: 'measured',
    core,
    ceiling,
    ratio: paired.ratio,
    cpuRatio: core.cpuUs > 0 ? ceiling.cpuUs / core.cpuUs : undefined,
    goal: operation.goal,
    met: paired.ratio >= operation.minimum && failures === 0,
    notes,
    rounds: paired.pairs,
  } satisfies Row;
}

/** The SDK's requests to the core per completed request of one load run. */
async function callsPer(url: string, work: () => Promise<{ completed: number }>): Promise<string> {
  const before = await coreCalls(url);
  const { completed } = await work();
  const after = await coreCalls(url);
  const calls = Object.entries(after)
    .map(([key, count]) => [key, (count - (before[key] ?? 0)) / Math.max(completed, 1)] as const)
    .filter(([, per]) => per >= 0.01)
    .map(([key, per]) => `${key} ${per.toFixed(2)}`);
  return calls.length > 0 ? calls.join(', ') : 'none';
}

export const appScenario: Scenario = {
  name: 'app',
  summary:
    'an Express app on supertokens-node and this core against the same app on better-auth (in-process, PostgreSQL): sign-in, protected route, refresh',
  async run(context) {
    const { settings, log } = context;
    log(`  hashing ${users} distinct bcrypt-10 passwords`);
    const credentials = await makeCredentials('bcrypt', users, users, 'app');

    const core = await context.core('app');
    await insertEmailPasswordUsers(core.pool, credentials);
    await core.pool.query('ANALYZE users, user_ids, user_groups');
    const sdkApp = await startSdkApp(core.server.url);
    context.onClose(() => sdkApp.stop());

    const librarySchema = context.schemas.reserve('better_auth');
    const libraryPool = context.pool(librarySchema);
    const libraryApp = await startBetterAuthApp(settings.databaseUrl, librarySchema, libraryPool);
    context.onClose(() => libraryApp.stop());
    await insertBetterAuthUsers(libraryPool, librarySchema, credentials);
    const sides: Sides = { sdk: { app: sdkApp, core: core.server }, library: { app: libraryApp } };
    const urls: Record<AppKind, string> = { sdk: sdkApp.url, library: libraryApp.url };

    log('  signing in a session per connection on both apps');
    const held: Record<AppKind, HeldSession[]> = { sdk: [], library: [] };
    for (const kind of ['sdk', 'library'] as const) {
      for (let index = 0; index < sessionConnections; index++) held[kind].push(await signIn(kind, urls[kind], credentials[index]));
    }
    const bcryptUs = await bcryptCheckUs(credentials[0]);

    log('  warm-up');
    for (const kind of ['sdk', 'library'] as const) {
      await runLoad({
        url: urls[kind],
        connections: signinConnections,
        seconds: 1,
        maxRequests: 1000,
        requests: signinRequests(kind, urls[kind], credentials),
        verifyBody: signinAnswered[kind],
      });
      await runLoad({
        url: urls[kind],
        connections: sessionConnections,
        seconds: 1,
        maxRequests: 100_000,
        requests: protectedRequests(kind, held[kind]),
      });
    }

    const rows: Row[] = [];
    if (selected('signin'))
      rows.push(
        await measure(
          context,
          sides,
          {
            name: 'signin',
            label: `email-password sign-in, bcrypt cost 10, ${users} accounts (${signinConnections} conn.)`,
            goal: '≥ 0.95 × better-auth',
            minimum: 0.95,
            connections: signinConnections,
            requests: (kind) => signinRequests(kind, urls[kind], credentials),
            verifyBody: (kind) => signinAnswered[kind],
            // The core and the library's thread pool both verify in arrival order.
            drain: (kind) => signIn(kind, urls[kind], credentials[0]),
          },
          async (sdk) => [
            `one bcrypt-10 check costs ${(bcryptUs / 1000).toFixed(2)} ms of CPU (this process); the core's CPU per sign-in beyond it: ${((sdk.cpu.coreUs - bcryptUs) / 1000).toFixed(2)} ms (median round)`,
            `the SDK's requests to the core per sign-in (one sign-in on its own): ${await callsPer(sdkApp.url, async () => {
              await signIn('sdk', sdkApp.url, credentials[1]);
              return { completed: 1 };
            })}`,
          ],
        ),
      );
    if (selected('protected'))
      rows.push(
        await measure(
          context,
          sides,
          {
            name: 'protected',
            label: `protected route GET /api/me, ${sessionConnections} sessions (${sessionConnections} conn.)`,
            goal: '≥ 2 × better-auth',
            minimum: 2,
            connections: sessionConnections,
            requests: (kind) => protectedRequests(kind, held[kind]),
          },
          async () => [
            `supertokens-node checks the access token against the core's JWKS in the app; better-auth reads the session row`,
            `the SDK's requests to the core per protected request: ${await callsPer(sdkApp.url, () =>
              runLoad({
                url: sdkApp.url,
                connections: sessionConnections,
                seconds: 1,
                maxRequests: 100_000,
                requests: protectedRequests('sdk', held.sdk),
              }),
            )}`,
          ],
        ),
      );
    const lost = { count: 0 };
    if (selected('refresh'))
      rows.push(
        await measure(
          context,
          sides,
          {
            name: 'refresh',
            label: `session refresh, ${sessionConnections} sessions each refreshed with its newest token (${sessionConnections} conn.)`,
            goal: '≥ 1.2 × better-auth',
            minimum: 1.2,
            connections: sessionConnections,
            requests: (kind) => refreshRequests(kind, held[kind], lost),
            verifyBody: (kind) => (kind === 'sdk' ? undefined : isOk),
          },
          async () => [
            'supertokens-node: POST /auth/session/refresh (the core rotates the refresh token and signs a new access token); better-auth: getSession with updateAge 0 (writes the session row, sets the cookie again)',
            `answers without a new token: ${lost.count}`,
          ],
        ),
      );
    return rows;
  },
};
