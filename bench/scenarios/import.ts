import type { Request } from 'autocannon';
import { hashPassword } from '../lib/credentials.js';
import { describeCpu, withCpu } from '../lib/cpu-accounting.js';
import { isOk, runLoad } from '../lib/load.js';
import { cpuRatioOf, loadFigure, skippedRow, spreadNote } from '../lib/report.js';
import { alternate } from '../lib/rounds.js';
import { routeExists, type Scenario } from '../lib/scenario.js';
import type { ServerProcess } from '../lib/server-process.js';
import { seedExistingUsers } from '../lib/seed.js';

const routePath = '/recipe/user/passwordhash/import';
const label = `POST ${routePath} (new users, 64 conn.)`;
const goal = '≥ 0.7 ×';
const connections = 64;
const existingUsers = 50_000;

/** Every request imports a user that does not exist yet, with one real bcrypt cost-10 hash. */
function importRequests(path: string, prefix: string, passwordHash: string): Request[] {
  let counter = 0;
  return [
    {
      method: 'POST',
      path,
      setupRequest: (request) => ({ ...request, body: JSON.stringify({ email: `${prefix}-${counter++}@bench.example`, passwordHash }) }),
    },
  ];
}

export const importScenario: Scenario = {
  name: 'import',
  summary: 'password-hash import of new users vs a bare route doing one INSERT of the same row',
  async run(context) {
    const { settings, log } = context;
    const core = await context.core('import');
    if (!(await routeExists(core.server.url, 'POST', routePath))) return [skippedRow('import', label, goal, 'route not implemented yet')];
    const bare = await context.bare('import');
    await Promise.all([seedExistingUsers(core.pool, existingUsers), seedExistingUsers(bare.pool, existingUsers)]);
    const passwordHash = await hashPassword('bcrypt', 'correct horse battery staple');
    const load = (server: ServerProcess, path: string, prefix: string, seconds: number) =>
      withCpu(settings.databaseUrl, server, () =>
        runLoad({
          url: server.url,
          connections,
          seconds,
          maxRequests: seconds * 20_000,
          requests: importRequests(path, prefix, passwordHash),
          verifyBody: isOk,
        }),
      );

    log('  warm-up');
    await load(bare.server, '/import', 'warm', 1);
    await load(core.server, routePath, 'warm', 1);
    const {
      ceiling,
      core: measured,
      ratio,
      pairs,
    } = await alternate(
      settings.rounds,
      (round) => load(bare.server, '/import', `r${round}`, settings.seconds),
      (round) => load(core.server, routePath, `r${round}`, settings.seconds),
      log,
    );

    const { rows } = await core.pool.query<{ count: number }>(`SELECT count(*)::int - ${existingUsers} AS count FROM users`);
    const coreFigure = loadFigure(measured, 'req/s', core.server.peakRssMb());
    const ceilingFigure = loadFigure(ceiling, 'req/s', bare.server.peakRssMb());
    const notes = [
      `${rows[0].count} users imported by the core, into tables already holding ${existingUsers.toLocaleString('en-US')} users`,
      `CPU per request: ${describeCpu('core', measured.cpuPerRequest)}; ${describeCpu('bare', ceiling.cpuPerRequest)}`,
      spreadNote(pairs),
    ];
    if (measured.failures > 0) notes.push(`${measured.failures} failed requests (${JSON.stringify(measured.statusCounts)})`);
    return [
      {
        scenario: 'import',
        path: label,
        status: 'measured',
        core: coreFigure,
        ceiling: ceilingFigure,
        ratio,
        cpuRatio: cpuRatioOf(coreFigure, ceilingFigure),
        goal,
        met: ratio >= 0.7 && measured.failures === 0,
        notes,
        rounds: pairs,
      },
    ];
  },
};
