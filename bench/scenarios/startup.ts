import { getStatus, type ServerProcess } from '../lib/server-process.js';
import { type Row } from '../lib/report.js';
import type { BenchContext, Scenario } from '../lib/scenario.js';
import { startBare, startCore } from '../lib/servers.js';
import { median } from '../lib/stats.js';

const idleSettleMs = 2000;

interface StartSample {
  startupMs: number;
  idleRssMb: number;
}

/** After startup, a few requests (so lazy code is loaded) and a pause, the resident set of an idle process. */
async function settle(server: ServerProcess): Promise<StartSample> {
  for (let index = 0; index < 20; index++) await getStatus(`${server.url}/hello`);
  await new Promise((resolve) => setTimeout(resolve, idleSettleMs));
  return { startupMs: server.startupMs, idleRssMb: server.rssMb() };
}

async function sample(start: () => Promise<ServerProcess>): Promise<StartSample> {
  const server = await start();
  try {
    return await settle(server);
  } finally {
    await server.stop();
  }
}

async function measure(context: BenchContext, runs: number) {
  const { settings, schemas } = context;
  const cold: StartSample[] = [];
  const restart: StartSample[] = [];
  const bare: StartSample[] = [];
  for (let run = 0; run < runs; run++) {
    const schema = schemas.reserve('core_startup');
    cold.push(await sample(() => startCore(settings, { schema, label: 'startup' })));
    restart.push(await sample(() => startCore(settings, { schema, label: 'restart' })));
    const migrated = await schemas.migrated('bare_startup');
    await migrated.pool.end();
    bare.push(await sample(() => startBare(settings, migrated.schema)));
  }
  const summary = (samples: StartSample[]) => ({
    startupMs: median(samples.map((s) => s.startupMs)),
    idleRssMb: median(samples.map((s) => s.idleRssMb)),
    all: samples.map((s) => `${s.startupMs.toFixed(0)} ms`).join(', '),
  });
  return { cold: summary(cold), restart: summary(restart), bare: summary(bare) };
}

export const startupScenario: Scenario = {
  name: 'startup',
  summary: 'idle RSS and spawn-to-first-/hello time of the core vs a bare Fastify + pg process',
  async run(context) {
    const runs = context.settings.rounds > 1 ? 3 : 1;
    const { cold, restart, bare } = await measure(context, runs);
    const medianNote = `median of ${runs}`;
    const rows: Row[] = [
      {
        scenario: 'startup',
        path: 'idle RSS (after 20 × /hello and 2 s idle)',
        status: 'measured',
        core: { value: cold.idleRssMb, unit: 'MB' },
        ceiling: { value: bare.idleRssMb, unit: 'MB' },
        goal: '< 100 MB',
        met: cold.idleRssMb < 100,
        notes: [medianNote],
      },
      {
        scenario: 'startup',
        path: 'cold start to first /hello (fresh schema: migrations run)',
        status: 'measured',
        core: { value: cold.startupMs, unit: 'ms' },
        ceiling: { value: bare.startupMs, unit: 'ms' },
        goal: '< 1 s',
        met: cold.startupMs < 1000,
        notes: [`${medianNote}: core ${cold.all}; bare ${bare.all}`],
      },
      {
        scenario: 'startup',
        path: 'restart to first /hello (schema up to date)',
        status: 'measured',
        core: { value: restart.startupMs, unit: 'ms' },
        ceiling: { value: bare.startupMs, unit: 'ms' },
        goal: '< 1 s',
        met: restart.startupMs < 1000,
        notes: [`${medianNote}: ${restart.all}`],
      },
    ];
    return rows;
  },
};
