import fs from 'node:fs';

interface CpuTimes {
  busy: number;
  total: number;
}

function readCpuTimes(): CpuTimes {
  // First line of /proc/stat: "cpu user nice system idle iowait irq softirq steal ..." in clock ticks.
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = fields[3] + (fields[4] ?? 0);
  const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
  return { busy: total - idle, total };
}

/** Share of all cores kept busy (by anything on the machine) between start() and the returned stop(). */
export function startCpuSampler(): () => number {
  const before = readCpuTimes();
  return () => {
    const after = readCpuTimes();
    const total = after.total - before.total;
    return total > 0 ? (100 * (after.busy - before.busy)) / total : 0;
  };
}

/** How busy the machine is before the run starts: other work here makes every number noisier. */
export async function measureBackgroundBusy(ms = 1000): Promise<number> {
  const stop = startCpuSampler();
  await new Promise((resolve) => setTimeout(resolve, ms));
  return stop();
}
