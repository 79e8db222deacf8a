// Runs the benchmarks: `npm run bench` (all) or `npm run bench:one -- <name>`; see bench/README.md.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import pg from 'pg';
import { measureBackgroundBusy } from './lib/cpu.js';
import { formatNotes, formatTable, machineInfo, writeRecord, type Row } from './lib/report.js';
import { BenchContext, type Scenario } from './lib/scenario.js';
import { SchemaRegistry } from './lib/schemas.js';
import { coreScript } from './lib/servers.js';
import { parseSettings, type BenchSettings } from './lib/settings.js';
import { scenarios } from './scenarios/index.js';

const log = (message: string) => process.stderr.write(`${message}\n`);

function selectScenarios(only: string[], requireName: boolean): Scenario[] {
  const known = scenarios.map((s) => s.name).join(', ');
  if (only.length === 0 && requireName)
    throw new Error(`name a scenario: npm run bench:one -- <name>; known: ${known} (signin = all three)`);
  if (only.length === 0) return scenarios;
  const selected = scenarios.filter((scenario) => only.some((name) => scenario.name === name || scenario.name.startsWith(`${name}-`)));
  if (selected.length === 0) {
    throw new Error(`no scenario matches ${only.join(', ')}; known: ${known}`);
  }
  return selected;
}

// dist/ is what gets measured. Type errors elsewhere in the tree (work in progress) do not stop tsc from
// emitting, so they are reported but do not stop the run.
function build(): void {
  log('building dist/ (tsc -p tsconfig.build.json)');
  const result = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { encoding: 'utf8' });
  if (result.status !== 0) {
    log(
      `warning: the build reported errors; measuring what was emitted:\n${(result.stdout + result.stderr).split('\n').slice(0, 10).join('\n')}`,
    );
  }
  if (!fs.existsSync(coreScript)) throw new Error(`${coreScript} is missing: run npm run build`);
}

async function checkDatabase(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    throw new Error(`cannot reach PostgreSQL at ${new URL(url).host}: ${(error as Error).message} (set DATABASE_URL)`, { cause: error });
  } finally {
    await client.end().catch(() => {});
  }
}

async function runScenario(scenario: Scenario, settings: BenchSettings, schemas: SchemaRegistry): Promise<Row[]> {
  log(`\n== ${scenario.name}: ${scenario.summary}`);
  const context = new BenchContext(settings, schemas, log);
  try {
    return await scenario.run(context);
  } catch (error) {
    log(`   failed: ${(error as Error).stack ?? String(error)}`);
    return [{ scenario: scenario.name, path: scenario.name, status: 'failed', goal: '', notes: [(error as Error).message.split('\n')[0]] }];
  } finally {
    await context.close();
  }
}

async function main(): Promise<void> {
  const settings = parseSettings(process.argv.slice(2), process.env);
  const selected = selectScenarios(settings.only, settings.requireName);
  if (settings.build && !settings.coreScript) build();
  await checkDatabase(settings.databaseUrl);
  if (settings.cpuProfileDir) fs.mkdirSync(settings.cpuProfileDir, { recursive: true });

  const schemas = new SchemaRegistry(settings.databaseUrl);
  const interrupted = () => {
    log('interrupted: dropping the benchmark schemas');
    void schemas.dropAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  const startedAt = new Date().toISOString();
  const busyBefore = await measureBackgroundBusy();
  log(`machine: ${machineInfo(busyBefore).cpus} cores, ${busyBefore.toFixed(0)} % busy before the run`);
  if (busyBefore > 20) log('warning: the machine is busy with other work; ratios hold, absolute numbers will be low');

  const rows: Row[] = [];
  try {
    for (const scenario of selected) rows.push(...(await runScenario(scenario, settings, schemas)));
  } finally {
    if (settings.keepSchemas) log(`kept schemas: ${schemas.names().join(' ')}`);
    else await schemas.dropAll();
  }

  const { databaseUrl, ...rest } = settings;
  const file = writeRecord({
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: machineInfo(busyBefore),
    settings: { ...rest, database: new URL(databaseUrl).host + new URL(databaseUrl).pathname },
    rows,
  });
  process.stdout.write(`\n${formatTable(rows)}\n\n${formatNotes(rows)}\n\nresults: ${file}\n`);
  if (settings.cpuProfileDir) process.stdout.write(`CPU profiles of the core: ${settings.cpuProfileDir}\n`);
}

main().catch((error: unknown) => {
  log(`bench: ${(error as Error).message}`);
  process.exit(1);
});
