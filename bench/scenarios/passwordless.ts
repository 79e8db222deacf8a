import type { Request } from 'autocannon';
import { describeCpu, withCpu } from '../lib/cpu-accounting.js';
import { isOk, runLoad, type LoadResult } from '../lib/load.js';
import { cpuRatioOf, loadFigure, skippedRow, spreadNote } from '../lib/report.js';
import { alternate } from '../lib/rounds.js';
import { postJson, routeExists, type Scenario } from '../lib/scenario.js';
import type { ServerProcess } from '../lib/server-process.js';
import { seedExistingUsers } from '../lib/seed.js';

const name = 'passwordless';
const createPath = '/recipe/signinup/code';
const consumePath = '/recipe/signinup/code/consume';
const label = `POST ${createPath} + ${consumePath} (new users, 64 conn.)`;
const goal = '≥ 0.5 ×';
const connections = 64;
const existingUsers = 50_000;

/**
 * One flow = create a code for a new email, then consume it by link code (which creates the user). Each
 * connection runs flows back to back; the consume request is built from the create answer.
 */
function flowRequests(paths: { create: string; consume: string }, prefix: string): Request[] {
  let counter = 0;
  return [
    {
      method: 'POST',
      path: paths.create,
      setupRequest: (request) => ({ ...request, body: JSON.stringify({ email: `${prefix}-${counter++}@bench.example` }) }),
      onResponse: (_status, body, context) => {
        try {
          const created = JSON.parse(body) as { preAuthSessionId?: string; linkCode?: string };
          context.preAuthSessionId = created.preAuthSessionId;
          context.linkCode = created.linkCode;
        } catch {
          context.linkCode = undefined;
        }
      },
    },
    {
      method: 'POST',
      path: paths.consume,
      // A failed create leaves nothing to consume; autocannon then starts the next flow.
      setupRequest: (request, context) =>
        context.linkCode
          ? { ...request, body: JSON.stringify({ preAuthSessionId: context.preAuthSessionId, linkCode: context.linkCode }) }
          : undefined,
    },
  ];
}

function flows(databaseUrl: string, server: ServerProcess, paths: { create: string; consume: string }, prefix: string, seconds: number) {
  return withCpu(databaseUrl, server, () =>
    runLoad({
      url: server.url,
      connections,
      seconds,
      maxRequests: seconds * 20_000,
      requests: flowRequests(paths, prefix),
      verifyBody: isOk,
    }),
  );
}

async function assertFlowWorks(url: string): Promise<void> {
  const created = await postJson(url, createPath, { email: 'probe@bench.example' });
  const consumed = await postJson(url, consumePath, { preAuthSessionId: created.json.preAuthSessionId, linkCode: created.json.linkCode });
  if (consumed.status !== 200 || consumed.json.status !== 'OK' || consumed.json.createdNewUser !== true) {
    throw new Error(`passwordless flow answered ${created.status} then ${consumed.status} ${JSON.stringify(consumed.json)}`);
  }
}

export const passwordlessScenario: Scenario = {
  name,
  summary: 'passwordless create + consume (user created) vs two bare routes doing BEGIN / SELECT / INSERT / COMMIT',
  async run(context) {
    const { settings, log } = context;
    const core = await context.core(name);
    if (!(await routeExists(core.server.url, 'POST', consumePath))) return [skippedRow(name, label, goal, 'route not implemented yet')];
    await assertFlowWorks(core.server.url);
    const bare = await context.bare(name);
    await Promise.all([seedExistingUsers(core.pool, existingUsers), seedExistingUsers(bare.pool, existingUsers)]);
    const corePaths = { create: createPath, consume: consumePath };
    const barePaths = { create: '/passwordless/create', consume: '/passwordless/consume' };

    log('  warm-up');
    const { databaseUrl, seconds } = settings;
    await flows(databaseUrl, bare.server, barePaths, 'warm', 1);
    await flows(databaseUrl, core.server, corePaths, 'warm', 1);
    // perSecond counts requests; a flow is two of them.
    const perFlow = <R extends LoadResult>(result: R) => ({ ...result, perSecond: result.perSecond / 2 });
    const {
      ceiling,
      core: measured,
      ratio,
      pairs,
    } = await alternate(
      settings.rounds,
      async (round) => perFlow(await flows(databaseUrl, bare.server, barePaths, `r${round}`, seconds)),
      async (round) => perFlow(await flows(databaseUrl, core.server, corePaths, `r${round}`, seconds)),
      log,
    );
    const { rows } = await core.pool.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM users WHERE recipe_id = 'passwordless' AND email LIKE 'r%@bench.example'`,
    );
    const coreFigure = loadFigure(measured, 'flows/s', core.server.peakRssMb());
    const ceilingFigure = loadFigure(ceiling, 'flows/s', bare.server.peakRssMb());
    const notes = [
      `${rows[0].count} passwordless users created by the core in the measured rounds, into tables already holding ${existingUsers.toLocaleString('en-US')} users; latencies are per request`,
      `CPU per request: ${describeCpu('core', measured.cpuPerRequest)}; ${describeCpu('bare', ceiling.cpuPerRequest)}`,
      spreadNote(pairs),
    ];
    if (measured.failures > 0) notes.push(`${measured.failures} failed requests (${JSON.stringify(measured.statusCounts)})`);
    return [
      {
        scenario: name,
        path: label,
        status: 'measured',
        core: coreFigure,
        ceiling: ceilingFigure,
        ratio,
        cpuRatio: cpuRatioOf(coreFigure, ceilingFigure),
        goal,
        met: ratio >= 0.5 && measured.failures === 0,
        notes,
        rounds: pairs,
      },
    ];
  },
};
