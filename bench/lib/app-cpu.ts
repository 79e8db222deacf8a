import { measureCpu, processCpuMs, waitUntilIdle } from './cpu-accounting.js';
import type { LoadResult } from './load.js';
import type { ServerProcess } from './server-process.js';

/**
 * The processes behind one app: the app itself, the core it calls (none for an in-process library) and whichever
 * of them holds the PostgreSQL connections (found by its application_name).
 */
export interface AppSide {
  app: ServerProcess;
  core?: ServerProcess;
}

/** CPU per completed request, in µs, of each process of a side. */
export interface AppCpu {
  appUs: number;
  coreUs: number;
  databaseUs: number;
  totalUs: number;
}

export type AppTimed = LoadResult & { cpu: AppCpu };

/**
 * A load run with the CPU of every process of the side per completed request; returns once `drain` has answered
 * and every process has gone quiet, so that requests still in flight do not overlap the next measurement. (On a
 * machine shared with other work a starved process can look idle: `drain` is a request that queues behind them.)
 */
export async function withAppCpu(
  databaseUrl: string,
  side: AppSide,
  work: () => Promise<LoadResult>,
  drain: () => Promise<unknown> = async () => {},
): Promise<AppTimed> {
  const holder = side.core ?? side.app;
  const { result, cpu } = await measureCpu(databaseUrl, holder.pid, holder.applicationName, async () => {
    const before = processCpuMs(side.app.pid);
    const load = await work();
    return { load, appMs: processCpuMs(side.app.pid) - before };
  });
  await drain();
  await Promise.all([waitUntilIdle(side.app.pid), side.core ? waitUntilIdle(side.core.pid) : Promise.resolve()]);
  const per = (ms: number) => (result.load.completed > 0 ? (ms * 1000) / result.load.completed : 0);
  const appUs = per(side.core ? result.appMs : cpu.processMs);
  const coreUs = side.core ? per(cpu.processMs) : 0;
  const databaseUs = per(cpu.databaseMs);
  return { ...result.load, cpu: { appUs, coreUs, databaseUs, totalUs: appUs + coreUs + databaseUs } };
}

export function describeAppCpu(label: string, cpu: AppCpu): string {
  const core = cpu.coreUs > 0 ? ` + core ${(cpu.coreUs / 1000).toFixed(2)}` : '';
  return `${label} ${(cpu.totalUs / 1000).toFixed(2)} ms (app ${(cpu.appUs / 1000).toFixed(2)}${core} + PostgreSQL ${(cpu.databaseUs / 1000).toFixed(2)})`;
}
