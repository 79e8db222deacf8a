import fs from 'node:fs';
import pg from 'pg';

// /proc/<pid>/stat counts CPU time in clock ticks; 100 per second on every mainstream Linux build.
const ticksPerSecond = 100;

/** CPU time (user + system) a process has used so far, in ms; 0 once it is gone. */
export function processCpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may contain spaces; the fields after it are fixed (utime and stime are 14 and 15).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
  } catch {
    return 0;
  }
}

/** The server process ids of the PostgreSQL connections opened with this application_name. */
async function backendPids(databaseUrl: string, applicationName: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [applicationName]);
    return rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

export interface CpuUse {
  processMs: number;
  databaseMs: number;
}

/**
 * CPU spent by a server process and by its PostgreSQL backends (found by application_name; the database runs
 * on this machine) while `work` runs. This is what decides throughput on a machine whose cores are all busy.
 * The backends are looked at every second: a connection the server's pool closes before the work ends (idle for
 * 30 s, in a run of minutes) takes its CPU with it, and the last look alone missed a third of PostgreSQL's CPU in a
 * 1,000,000-user import.
 */
export async function measureCpu<T>(
  databaseUrl: string,
  pid: number,
  applicationName: string,
  work: () => Promise<T>,
): Promise<{ result: T; cpu: CpuUse }> {
  const backendsBefore = new Map((await backendPids(databaseUrl, applicationName)).map((id) => [id, processCpuMs(id)]));
  const backendsSeen = new Map(backendsBefore);
  const look = async () => {
    for (const id of await backendPids(databaseUrl, applicationName)) {
      backendsSeen.set(id, Math.max(backendsSeen.get(id) ?? 0, processCpuMs(id)));
    }
  };
  const processBefore = processCpuMs(pid);
  let looking = Promise.resolve();
  const timer = setInterval(() => (looking = looking.then(look).catch(() => {})), 1000);
  let result: T;
  try {
    result = await work();
  } finally {
    clearInterval(timer);
  }
  const processMs = processCpuMs(pid) - processBefore;
  await looking;
  await look();
  let databaseMs = 0;
  for (const [id, ms] of backendsSeen) databaseMs += ms - (backendsBefore.get(id) ?? 0);
  return { result, cpu: { processMs, databaseMs } };
}

/** With application_name set, a server's database connections can be told apart in pg_stat_activity. */
export function withApplicationName(databaseUrl: string, applicationName: string): string {
  const url = new URL(databaseUrl);
  url.searchParams.set('application_name', applicationName);
  return url.toString();
}

export function perRequestUs(cpu: CpuUse, requests: number): CpuPerRequest {
  return requests > 0
    ? { processUs: (cpu.processMs * 1000) / requests, databaseUs: (cpu.databaseMs * 1000) / requests }
    : { processUs: 0, databaseUs: 0 };
}

export interface CpuPerRequest {
  processUs: number;
  databaseUs: number;
}

/**
 * A load run against `server`, with the CPU its process and its backends spent per completed request. When the
 * load generator stops, the server still holds the requests in flight (a queue of password verifications can be
 * a second of work), so this returns only once the server has gone quiet: that work must not overlap the next
 * measurement.
 */
export async function withCpu<T extends { completed: number }>(
  databaseUrl: string,
  server: { pid: number; applicationName: string },
  work: () => Promise<T>,
): Promise<T & { cpuPerRequest: CpuPerRequest }> {
  const { result, cpu } = await measureCpu(databaseUrl, server.pid, server.applicationName, work);
  await waitUntilIdle(server.pid);
  return { ...result, cpuPerRequest: perRequestUs(cpu, result.completed) };
}

/** Until the process uses under 10 % of a core over 200 ms (bounded: 15 s). */
export async function waitUntilIdle(pid: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const before = processCpuMs(pid);
    await new Promise((resolve) => setTimeout(resolve, 200));
    if (processCpuMs(pid) - before <= 20) return;
  }
}

export function describeCpu(label: string, cpu: CpuPerRequest): string {
  return `${label} ${cpu.processUs.toFixed(0)} µs in the process + ${cpu.databaseUs.toFixed(0)} µs in its PostgreSQL backends`;
}
