import { startCpuSampler } from '../lib/cpu.js';
import { algorithms, makeCredentials, type Credential } from '../lib/credentials.js';
import { withCpu } from '../lib/cpu-accounting.js';
import type { LoadResult } from '../lib/load.js';
import { probeLatency, type ProbeResult } from '../lib/probe.js';
import type { ServerProcess } from '../lib/server-process.js';
import { skippedRow } from '../lib/report.js';
import { routeExists, type Scenario } from '../lib/scenario.js';
import { insertEmailPasswordUsers } from '../lib/seed.js';
import { assertSigninWorks, signinLoad, signinPath } from '../lib/signin-load.js';

const name = 'hello-storm';
const label = 'GET /hello p99 during a sign-in storm (all three algorithms, 64 conn.)';
const goal = '< 50 ms p99';
const stormConnections = 64;
// A health check every 20 ms: enough samples for a p99, too few to be load.
const probeIntervalMs = 20;

function probeHello(url: string, seconds: number) {
  return probeLatency(`${url}/hello`, { intervalMs: probeIntervalMs, seconds });
}

/** Accounts of all three algorithms interleaved, the morning after a migration: the worst case for the event loop. */
function interleave(groups: Credential[][]): Credential[] {
  const mixed: Credential[] = [];
  for (let index = 0; index < Math.max(...groups.map((g) => g.length)); index++) {
    for (const group of groups) if (group[index]) mixed.push(group[index]);
  }
  return mixed;
}

interface StormResult {
  storm: LoadResult;
  probe: ProbeResult;
  cpuBusy: number;
}

const stormRounds = (rounds: number) => Math.min(3, rounds);

async function stormWithProbe(
  databaseUrl: string,
  server: ServerProcess,
  credentials: Credential[],
  seconds: number,
): Promise<StormResult> {
  const busy = startCpuSampler();
  const [storm, probe] = await Promise.all([
    withCpu(databaseUrl, server, () => signinLoad(server.url, credentials, stormConnections, seconds)),
    // Starts a moment later and ends earlier, so every probe lands inside the storm.
    new Promise((resolve) => setTimeout(resolve, 500)).then(() => probeHello(server.url, Math.max(1, seconds - 1))),
  ]);
  return { storm, probe, cpuBusy: busy() };
}

export const helloUnderStormScenario: Scenario = {
  name,
  summary: '/hello latency while sign-ins of every algorithm keep both cores busy',
  async run(context) {
    const { settings, log } = context;
    const core = await context.core(name);
    if (!(await routeExists(core.server.url, 'POST', signinPath)))
      return [skippedRow(name, label, goal, 'sign-in route not implemented yet')];
    log('  hashing passwords');
    const credentials = interleave(await Promise.all(algorithms.map((algorithm) => makeCredentials(algorithm, 32, 4, name))));
    await insertEmailPasswordUsers(core.pool, credentials);
    await assertSigninWorks(core.server.url, credentials);

    const quiet = await probeHello(core.server.url, Math.min(settings.seconds, 3));
    log(`  /hello without load: p50 ${quiet.p50Ms.toFixed(1)} ms, p99 ${quiet.p99Ms.toFixed(1)} ms`);
    // Several storms, each drained before the next: the median p99 shrugs off one burst of unrelated work.
    const storms: StormResult[] = [];
    for (let round = 1; round <= stormRounds(settings.rounds); round++) {
      storms.push(await stormWithProbe(settings.databaseUrl, core.server, credentials, settings.seconds));
      const last = storms[storms.length - 1];
      log(
        `  storm ${round}: /hello p50 ${last.probe.p50Ms.toFixed(1)} ms, p99 ${last.probe.p99Ms.toFixed(1)} ms; ${last.storm.perSecond.toFixed(1)} sign-ins/s`,
      );
    }
    const sorted = [...storms].sort((a, b) => a.probe.p99Ms - b.probe.p99Ms);
    const { probe, storm, cpuBusy } = sorted[Math.ceil(sorted.length / 2) - 1];
    const failures = storms.reduce((sum, s) => sum + s.storm.failures + s.probe.failures, 0);
    const notes = [
      `median of ${storms.length} storms (p99 ${storms.map((s) => s.probe.p99Ms.toFixed(0)).join(', ')} ms); ${probe.count} probes each, one every ${probeIntervalMs} ms`,
      `storm: ${storm.perSecond.toFixed(1)} sign-ins/s, p99 ${storm.p99Ms} ms, machine CPU ${cpuBusy.toFixed(0)} % busy`,
      `/hello without load: p50 ${quiet.p50Ms.toFixed(1)} / p99 ${quiet.p99Ms.toFixed(1)} ms`,
    ];
    if (failures > 0) notes.push(`${failures} failed requests or probes`);
    return [
      {
        scenario: name,
        path: label,
        status: 'measured',
        core: {
          value: probe.p99Ms,
          unit: 'ms p99',
          p50Ms: probe.p50Ms,
          p99Ms: probe.p99Ms,
          peakRssMb: core.server.peakRssMb(),
          count: probe.count,
          failures: probe.failures,
        },
        goal,
        met: probe.p99Ms < 50 && failures === 0,
        notes,
      },
    ];
  },
};
