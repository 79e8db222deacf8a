import fs from 'node:fs';
import type pg from 'pg';

// Imported users over time, read from the statistics collector (a count(*) of a growing table every few hundred
// milliseconds would load the server being measured), and the resident sets of the processes under test.

export interface Sample {
  ms: number;
  users: number;
  rssMb: Record<string, number>;
}

export function rssMb(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

export function startSampling(pool: pg.Pool, processes: () => Record<string, number | undefined>, intervalMs: number) {
  const samples: Sample[] = [];
  const started = performance.now();
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    const rss = Object.fromEntries(Object.entries(processes()).map(([name, pid]) => [name, rssMb(pid)]));
    pool
      .query<{ n: number }>("SELECT coalesce(sum(n_tup_ins), 0)::float8 AS n FROM pg_stat_user_tables WHERE relname = 'users'")
      .then(({ rows }) => samples.push({ ms: performance.now() - started, users: rows[0].n, rssMb: rss }))
      .catch(() => {})
      .finally(() => (busy = false));
  }, intervalMs);
  return {
    samples,
    // The statistics collector lags by up to a second, so the last samples may fall short of the end: the caller
    // passes the count it verified when the command exited, which closes the last tenth at the right time.
    stop: (finalUsers: number) => {
      clearInterval(timer);
      samples.push({ ms: performance.now() - started, users: finalUsers, rssMb: samples.at(-1)?.rssMb ?? {} });
    },
  };
}

// Users/s in each tenth of the import, from the command's start. Users arrive a request (up to 10,000) at a time,
// so at 100,000 users a tenth is one request; the first tenth also holds the command's start-up.
export function sliceRates(samples: Sample[], total: number): number[] {
  const timeAt = (users: number): number | undefined => {
    const after = samples.findIndex((sample) => sample.users >= users);
    if (after < 0) return undefined;
    if (after === 0) return samples[0].ms;
    const a = samples[after - 1];
    const b = samples[after];
    return a.ms + ((b.ms - a.ms) * (users - a.users)) / Math.max(1, b.users - a.users);
  };
  const boundaries = [0];
  for (let tenth = 1; tenth <= 10; tenth++) boundaries.push(timeAt((total * tenth) / 10) ?? Number.NaN);
  return boundaries.slice(1).map((end, i) => total / 10 / ((end - boundaries[i]) / 1000));
}
