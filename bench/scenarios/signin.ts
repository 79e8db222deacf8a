import { measureVerifyCeiling } from '../ceilings/verify.js';
import { argon2Defaults, hashParameters, makeCredentials, type Algorithm, type Credential } from '../lib/credentials.js';
import { cpuRatioOf, loadFigure, skippedRow, spreadNote, type Figure } from '../lib/report.js';
import { alternate } from '../lib/rounds.js';
import { routeExists, type BenchContext, type Scenario } from '../lib/scenario.js';
import { insertEmailPasswordUsers } from '../lib/seed.js';
import { assertSigninWorks, signinLoad, signinPath } from '../lib/signin-load.js';
import { describeCpu, withCpu } from '../lib/cpu-accounting.js';

const argon2 = argon2Defaults();
export const describeAlgorithm: Record<Algorithm, string> = {
  bcrypt: `bcrypt cost ${hashParameters.bcryptCost}`,
  argon2: `argon2id m=${argon2.memoryKb} t=${argon2.iterations} p=${argon2.parallelism}`,
  scrypt: `platform scrypt m=${hashParameters.scryptMemCost} r=${hashParameters.scryptRounds}`,
};
const goal = '≥ 0.9 ×';
// Enough to keep the core's hashing limiter queue full at all times without piling up huge latencies.
const connections = 16;
const accounts = 64;
const distinctHashes = 8;

/**
 * How many verifications at a time let this machine's cores go fastest: one per core, or twice that (the
 * libuv pool has 4 threads by default). Tried briefly once; the rounds then all use the winner.
 */
async function calibrate(context: BenchContext, algorithm: Algorithm, credentials: Credential[]): Promise<number> {
  const { cores } = context.settings;
  let best = { concurrency: cores, perSecond: 0 };
  for (const concurrency of [cores, cores * 2]) {
    const { perSecond } = await measureVerifyCeiling(algorithm, credentials, { concurrency, seconds: 2, maxOps: 4000 });
    context.log(`  ceiling at ${concurrency} at a time: ${perSecond.toFixed(1)}/s`);
    if (perSecond > best.perSecond) best = { concurrency, perSecond };
  }
  return best.concurrency;
}

function signinScenario(algorithm: Algorithm): Scenario {
  const name = `signin-${algorithm}`;
  const label = `POST ${signinPath} (${describeAlgorithm[algorithm]}, ${connections} conn.)`;
  return {
    name,
    summary: `sign-in with ${describeAlgorithm[algorithm]} hashes vs the same verify calls with no HTTP, all cores busy`,
    async run(context) {
      const { settings, log } = context;
      const core = await context.core(name);
      if (!(await routeExists(core.server.url, 'POST', signinPath))) return [skippedRow(name, label, goal, 'route not implemented yet')];
      log(`  hashing ${distinctHashes} ${algorithm} passwords`);
      const credentials = await makeCredentials(algorithm, accounts, distinctHashes, name);
      await insertEmailPasswordUsers(core.pool, credentials);
      await assertSigninWorks(core.server.url, credentials);

      const { databaseUrl } = settings;
      const load = (seconds: number) =>
        withCpu(databaseUrl, core.server, () => signinLoad(core.server.url, credentials, connections, seconds));
      log('  warm-up');
      await load(1);
      const concurrency = await calibrate(context, algorithm, credentials);
      const { seconds } = settings;
      const {
        ceiling,
        core: measured,
        ratio,
        pairs,
      } = await alternate(
        settings.rounds,
        () => measureVerifyCeiling(algorithm, credentials, { concurrency, seconds, maxOps: seconds * 2000 }),
        () => load(seconds),
        log,
      );
      const coreFigure = loadFigure(measured, 'sign-ins/s', core.server.peakRssMb());
      const ceilingFigure: Figure = {
        value: ceiling.perSecond,
        unit: 'verifies/s',
        p50Ms: ceiling.p50Ms,
        p99Ms: ceiling.p99Ms,
        count: ceiling.completed,
        seconds: ceiling.seconds,
        cpuUs: ceiling.cpuPerVerifyUs,
      };
      const notes = [
        `ceiling: ${ceiling.concurrency} verifications at a time in the runner process, ${ceiling.cpuPerVerifyUs.toFixed(0)} µs CPU per verify`,
        `CPU per sign-in: ${describeCpu('core', measured.cpuPerRequest)}`,
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
          met: ratio >= 0.9 && measured.failures === 0,
          notes,
          rounds: pairs,
        },
      ];
    },
  };
}

export const signinScenarios: Scenario[] = (['bcrypt', 'argon2', 'scrypt'] as const).map(signinScenario);
