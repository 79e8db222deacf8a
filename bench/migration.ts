// The migration as users run it, measured end to end (not a test): a new database that has never been analyzed,
// with autovacuum off; a Firebase export of N users; `identity-core migrate firebase` against a core process
// (both built from dist/). Reports users/s overall and per tenth, peak RSS of core and command, the bulk route's own
// rate (importNow, batches of 10,000, users read before the clock starts) into a third new database, and COPY of
// the same rows into the same tables in the same run; then more command / route pairs in alternating order, each into
// new databases, with the CPU seconds each side spent, and the median ratio. Each timed run starts after a CHECKPOINT.
// Run: npm run bench:migration -- [N] [--no-build] [--pairs=P] (P: 3 up to 200,000 users, else 1)
// Env: DATABASE_URL (the server to create the databases on; default postgresql://postgres@127.0.0.1:5432/postgres),
// BENCH_KEEP=1 keeps the databases and the export; BULK_MIGRATION_* and POSTGRESQL_CONNECTION_POOL_SIZE go to the core;
// --cpu-prof writes V8 profiles of the command and the core to bench/results/ (read them with bench/tools/profile-summary.ts).
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createPool } from '../src/db/pool.js';
import { migrate } from '../src/db/migrate.js';
import { freePort, startServer } from './lib/server-process.js';
import { measureCpu, processCpuMs, withApplicationName } from './lib/cpu-accounting.js';
import { distinctPasswords, hashConfigBlock, newHashParameters, writeFirebaseExport } from './migration/firebase-export.js';
import { sliceRates, startSampling } from './migration/progress-samples.js';
import { dumpImportedRows, timeCopyInto } from './migration/copy-ceiling.js';
import { readBatches, timeBulkRoute } from './migration/route-ceiling.js';
import type { BulkImportUser } from '../src/cli/bulk-user.js';

const args = process.argv.slice(2);
const total = Number(args.find((arg) => /^\d+$/.test(arg)) ?? process.env.BENCH_USERS ?? 100_000);
const build = !args.includes('--no-build');
// More command / route pairs after the first, each into two new databases, in alternating order, so that a machine
// whose load changes during the run moves both sides of a ratio alike; the median ratio is reported.
const pairsArg = args.find((arg) => arg.startsWith('--pairs='));
const pairs = pairsArg === undefined ? (total <= 200_000 ? 3 : 1) : Math.max(1, Number(pairsArg.slice('--pairs='.length)));
const profileDir = args.includes('--cpu-prof') ? path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'results') : undefined;
// BENCH_NODE_ARGS: more node flags for both processes (a --require that times statements, say), split on spaces.
const extraNodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
const profileArgs = (name: string) => [
  ...extraNodeArgs,
  ...(profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}-${suffix}.cpuprofile`]),
];
const distinctHashes = 256;
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const serverUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const suffix = crypto.randomBytes(4).toString('hex');
const log = (message: string) => process.stderr.write(`${message}\n`);
const seconds = (ms: number) => (ms / 1000).toFixed(1);

function databaseUrl(name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl('postgres') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

// A new database with the schema and nothing else: never analyzed, and with autovacuum off (the server's setting
// if it is off already, else per table), as on a machine where the import outruns autoanalyze.
async function newDatabase(name: string): Promise<{ autovacuum: string }> {
  await withAdmin((admin) => admin.query(`CREATE DATABASE ${name}`));
  const pool = createPool({ connectionString: databaseUrl(name), schema: 'public', size: 1 });
  try {
    await migrate(pool, 'public');
    const { rows } = await pool.query<{ autovacuum: string }>('SHOW autovacuum');
    if (rows[0].autovacuum !== 'off') {
      const tables = await pool.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'");
      for (const { name: table } of tables.rows) await pool.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
    }
    return rows[0];
  } finally {
    await pool.end();
  }
}

// Before each timed run, so that the write-back of the run before it (and of CREATE DATABASE) lands outside it.
async function checkpoint(): Promise<void> {
  await withAdmin((admin) => admin.query('CHECKPOINT')).catch((error: Error) =>
    log(`CHECKPOINT refused (${error.message}): timed without it`),
  );
}

async function countUsers(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ users: number }>('SELECT count(*)::int AS users FROM users');
  return rows[0].users;
}

function runCommand(
  argv: string[],
  env: Record<string, string>,
): { pid: number | undefined; done: Promise<{ code: number; output: string }> } {
  const child = spawn(process.execPath, argv, {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-8000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const done = new Promise<{ code: number; output: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, output }));
  });
  return { pid: child.pid, done };
}

function peakRssMb(pid: number | undefined): number {
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

async function startCoreOn(database: string, signerKey: string, dir: string, passThrough: Record<string, string>) {
  const port = await freePort();
  const applicationName = `bench-migration-${port}`;
  return startServer({
    name: `core-${database}`,
    script: path.join(repoRoot, 'dist/server.js'),
    args: [`--config=${path.join(dir, 'empty.yaml')}`],
    port,
    applicationName,
    env: {
      DATABASE_URL: withApplicationName(databaseUrl(database), applicationName),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'WARN',
      IDP_PASSWORD_HASHING_SIGNER_KEY: signerKey,
      ...passThrough,
    },
  });
}

/** A timed run of one side of a pair, with the CPU seconds each process spent in it (0 for the route's client). */
interface SideRun {
  ms: number;
  cpu: { command: number; core: number; postgres: number };
}

/** The command end to end into a new core on `database`, as the first run but without its samples. */
async function timeCommandIntoDatabase(
  database: string,
  migrateArgs: string[],
  signerKey: string,
  dir: string,
  passThrough: Record<string, string>,
): Promise<SideRun> {
  const core = await startCoreOn(database, signerKey, dir, passThrough);
  try {
    const argv = migrateArgs.map((arg, i) =>
      migrateArgs[i - 1] === '--core-url' ? core.url : migrateArgs[i - 1] === '--report' ? path.join(dir, `report-${database}.json`) : arg,
    );
    await checkpoint();
    let commandMs = 0;
    const { result: ms, cpu } = await measureCpu(databaseUrl(database), core.pid, core.applicationName, async () => {
      const started = performance.now();
      const command = runCommand([...argv, '--restart'], {});
      // Read until it exits: a process that is gone has no /proc entry left to read.
      const sampler = setInterval(() => (commandMs = Math.max(commandMs, processCpuMs(command.pid ?? 0))), 20);
      const result = await command.done;
      clearInterval(sampler);
      if (result.code !== 0) throw new Error(`the migration into ${database} exited ${result.code}:\n${result.output}`);
      return performance.now() - started;
    });
    return { ms, cpu: { command: commandMs / 1000, core: cpu.processMs / 1000, postgres: cpu.databaseMs / 1000 } };
  } finally {
    await core.stop();
  }
}

async function timeRouteIntoDatabase(
  database: string,
  batches: BulkImportUser[][],
  signerKey: string,
  dir: string,
  passThrough: Record<string, string>,
): Promise<SideRun> {
  const core = await startCoreOn(database, signerKey, dir, passThrough);
  try {
    await checkpoint();
    const { result: ms, cpu } = await measureCpu(databaseUrl(database), core.pid, core.applicationName, () =>
      timeBulkRoute(core.url, batches),
    );
    return { ms, cpu: { command: 0, core: cpu.processMs / 1000, postgres: cpu.databaseMs / 1000 } };
  } finally {
    await core.stop();
  }
}

const describeSide = (run: SideRun) =>
  `${seconds(run.ms)} s (CPU s: ${run.cpu.command > 0 ? `command ${run.cpu.command.toFixed(2)}, ` : ''}core ${run.cpu.core.toFixed(2)}, PostgreSQL ${run.cpu.postgres.toFixed(2)})`;

async function main(): Promise<void> {
  if (build) {
    log('building dist/ (npm run build)');
    const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: repoRoot, stdio: 'inherit' });
    if (built.status !== 0) throw new Error('the build failed');
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'identity-core-migration-bench-'));
  const importDb = `ic_bench_migrate_${suffix}`;
  const copyDb = `ic_bench_copy_${suffix}`;
  const routeDb = `ic_bench_route_${suffix}`;
  const created: string[] = [];
  try {
    const params = newHashParameters();
    log(`making ${distinctHashes} distinct $f_scrypt$ hashes (rounds ${params.rounds}, mem_cost ${params.memCost})`);
    const passwords = await distinctPasswords(params, distinctHashes);
    const exportFile = path.join(dir, 'users.json');
    const hashConfigFile = path.join(dir, 'hash-config.txt');
    fs.writeFileSync(hashConfigFile, hashConfigBlock(params));
    const bytes = await writeFirebaseExport(exportFile, total, passwords);
    log(`export: ${total} users, ${(bytes / 1e6).toFixed(0)} MB`);

    created.push(importDb);
    const { autovacuum } = await newDatabase(importDb);
    created.push(copyDb);
    await newDatabase(copyDb);
    created.push(routeDb);
    await newDatabase(routeDb);
    fs.writeFileSync(path.join(dir, 'empty.yaml'), '');

    const passThrough = Object.fromEntries(
      Object.entries(process.env).filter(([name]) =>
        /^(BULK_MIGRATION_|BULK_IMPORT_|POSTGRESQL_CONNECTION_POOL_SIZE|UV_THREADPOOL_SIZE)/.test(name),
      ),
    ) as Record<string, string>;
    const port = await freePort();
    const applicationName = `bench-migration-core-${port}`;
    const core = await startServer({
      name: 'core',
      script: path.join(repoRoot, 'dist/server.js'),
      nodeArgs: profileArgs('core'),
      args: [`--config=${path.join(dir, 'empty.yaml')}`],
      port,
      applicationName,
      env: {
        DATABASE_URL: withApplicationName(databaseUrl(importDb), applicationName),
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'WARN',
        IDP_PASSWORD_HASHING_SIGNER_KEY: params.signerKey,
        ...passThrough,
      },
    });
    const pool = createPool({ connectionString: databaseUrl(importDb), schema: 'public', size: 1 });
    let result: { code: number; output: string };
    let elapsedMs: number;
    let commandPeakMb = 0;
    let corePeakMb = 0;
    let sampling: ReturnType<typeof startSampling>;
    // CPU seconds of the command, the core and the core's PostgreSQL backends: on a shared machine, where the
    // wall time goes is easier to read from what each part consumed.
    const cpu = { commandMs: 0, coreMs: 0, databaseMs: 0 };
    const migrateArgs = [
      'dist/cli/main.js',
      'migrate',
      'firebase',
      exportFile,
      '--hash-config',
      hashConfigFile,
      '--core-url',
      core.url,
      '--report',
      path.join(dir, 'report.json'),
    ];
    const rerunSeconds: Record<string, number> = {};
    try {
      await checkpoint();
      const started = performance.now();
      const command = runCommand([...profileArgs('command'), ...migrateArgs], {});
      sampling = startSampling(pool, () => ({ core: core.pid, command: command.pid }), 250);
      const peaks = setInterval(() => {
        commandPeakMb = Math.max(commandPeakMb, peakRssMb(command.pid));
        cpu.commandMs = Math.max(cpu.commandMs, processCpuMs(command.pid ?? 0));
      }, 100);
      const measured = await measureCpu(databaseUrl(importDb), core.pid, applicationName, () => command.done);
      result = measured.result;
      elapsedMs = performance.now() - started;
      clearInterval(peaks);
      sampling.stop(await countUsers(pool));
      corePeakMb = core.peakRssMb();
      cpu.coreMs = measured.cpu.processMs;
      cpu.databaseMs = measured.cpu.databaseMs;
      if (result.code === 0) {
        // The same command again on the finished import, as it is and from scratch: it must recognise every
        // user as already imported, send nothing, and leave the core as it was.
        for (const [name, extra] of [
          ['same', []],
          ['restart', ['--restart']],
        ] as const) {
          const rerunStarted = performance.now();
          const rerun = await runCommand([...migrateArgs, ...extra], {}).done;
          rerunSeconds[name] = (performance.now() - rerunStarted) / 1000;
          const { rows: queued } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM bulk_import_users');
          if (rerun.code !== 0 || (await countUsers(pool)) !== total || queued[0].n !== 0) {
            throw new Error(`the re-run (${name}) exited ${rerun.code} and left ${queued[0].n} queue rows:\n${rerun.output}`);
          }
        }
      }
    } finally {
      await core.stop();
    }
    const imported = await countUsers(pool);
    const { rows: analyzed } = await pool.query<{ n: number }>(
      "SELECT coalesce(max(analyze_count), 0)::int AS n FROM pg_stat_user_tables WHERE relname = 'users'",
    );
    await pool.end();
    if (result.code !== 0 || imported !== total) {
      throw new Error(`the migration exited ${result.code} with ${imported} of ${total} users imported:\n${result.output}`);
    }

    log('bulk route ceiling: the same users through POST /bulk-import/users?importNow=true into another new database');
    const batches = await readBatches(exportFile, hashConfigFile);
    const routeRun = await timeRouteIntoDatabase(routeDb, batches, params.signerKey, dir, passThrough);
    const routeMs = routeRun.ms;
    log(`first route run: ${describeSide(routeRun)}`);
    const pairRatios = [total / elapsedMs / (total / routeMs)];
    for (let pair = 2; pair <= pairs; pair++) {
      const order = pair % 2 === 0 ? (['route', 'command'] as const) : (['command', 'route'] as const);
      const runs: Record<string, SideRun> = {};
      for (const side of order) {
        const name = `ic_bench_pair${pair}_${side}_${suffix}`;
        created.push(name);
        await newDatabase(name);
        runs[side] =
          side === 'route'
            ? await timeRouteIntoDatabase(name, batches, params.signerKey, dir, passThrough)
            : await timeCommandIntoDatabase(name, migrateArgs, params.signerKey, dir, passThrough);
        await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      }
      pairRatios.push(runs.route.ms / runs.command.ms);
      log(
        `pair ${pair} (${order.join(' first, then ')}): command ${describeSide(runs.command)}, route ${describeSide(runs.route)}, ` +
          `ratio ${(runs.route.ms / runs.command.ms).toFixed(2)}`,
      );
    }
    batches.length = 0;

    log('COPY ceiling: the same rows into the same tables of another new database');
    await dumpImportedRows(databaseUrl(importDb), dir);
    const copyMs = await timeCopyInto(databaseUrl(copyDb), dir);

    const rate = total / (elapsedMs / 1000);
    const copyRate = total / (copyMs / 1000);
    const routeRate = total / (routeMs / 1000);
    const slices = sliceRates(sampling.samples, total);
    const half = sampling.samples.find((sample) => sample.users >= total / 2);
    const last = sampling.samples.at(-1);
    const summary = {
      users: total,
      seconds: elapsedMs / 1000,
      usersPerSecond: rate,
      copySeconds: copyMs / 1000,
      copyUsersPerSecond: copyRate,
      ratioToCopy: rate / copyRate,
      routeSeconds: routeMs / 1000,
      routeUsersPerSecond: routeRate,
      ratioToRoute: rate / routeRate,
      pairRatios,
      medianRatioToRoute: median(pairRatios),
      sliceUsersPerSecond: slices,
      lastToFirstSlice: slices[9] / slices[0],
      corePeakRssMb: corePeakMb,
      commandPeakRssMb: commandPeakMb,
      rssAtHalfMb: half?.rssMb,
      rssAtEndMb: last?.rssMb,
      autovacuum,
      analyzedByCore: analyzed[0].n,
      machineLoadAtEnd: os.loadavg(),
      rerunSeconds,
      cpuSeconds: {
        command: cpu.commandMs / 1000,
        core: cpu.coreMs / 1000,
        postgres: cpu.databaseMs / 1000,
      },
    };
    const lines = [
      `users                      ${total}  (90 % password, 5 % Google, 3 % phone, 2 % email link)`,
      `migration, end to end      ${seconds(elapsedMs)} s  (${Math.round(rate)} users/s)`,
      `bulk route (importNow)     ${seconds(routeMs)} s  (${Math.round(routeRate)} users/s)`,
      `migration / bulk route     ${(rate / routeRate).toFixed(2)}` +
        (pairRatios.length > 1
          ? `; median of ${pairRatios.length} alternating pairs ${median(pairRatios).toFixed(2)} (${pairRatios.map((r) => r.toFixed(2)).join(', ')})`
          : ''),
      `COPY of the same rows      ${seconds(copyMs)} s  (${Math.round(copyRate)} users/s)`,
      `migration / COPY           ${(rate / copyRate).toFixed(2)}`,
      `re-run when finished       ${rerunSeconds.same?.toFixed(1)} s as it is, ${rerunSeconds.restart?.toFixed(1)} s with --restart`,
      `users/s per tenth          ${slices.map((value) => Math.round(value)).join(' ')}`,
      `last / first tenth         ${(slices[9] / slices[0]).toFixed(2)}`,
      `peak RSS                   core ${corePeakMb.toFixed(0)} MB, command ${commandPeakMb.toFixed(0)} MB`,
      `RSS at half / at the end   core ${half?.rssMb.core.toFixed(0)} / ${last?.rssMb.core.toFixed(0)} MB, command ${half?.rssMb.command.toFixed(0)} / ${last?.rssMb.command.toFixed(0)} MB`,
      `CPU seconds                command ${summary.cpuSeconds.command.toFixed(1)}, core ${summary.cpuSeconds.core.toFixed(1)}, ` +
        `its PostgreSQL backends ${summary.cpuSeconds.postgres.toFixed(1)} (wall ${seconds(elapsedMs)} s × ${os.cpus().length} cores)`,
      `autovacuum ${autovacuum}; statistics refreshed by the core ${analyzed[0].n} times; load average ${os
        .loadavg()
        .map((v) => v.toFixed(1))
        .join(' ')}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    const resultsDir = path.join(repoRoot, 'bench/results');
    fs.mkdirSync(resultsDir, { recursive: true });
    fs.writeFileSync(
      path.join(resultsDir, `migration-${total}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
      JSON.stringify({ summary, samples: sampling.samples }, null, 1),
    );
  } finally {
    if (!process.env.BENCH_KEEP) {
      for (const name of created) await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    } else {
      log(`kept: databases ${created.join(', ')}, files in ${dir}`);
    }
  }
}

main().catch((error: unknown) => {
  log(`migration bench failed: ${error instanceof Error ? error.stack : String(error)}`);
  process.exit(1);
});
