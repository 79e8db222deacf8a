// `npm run bench:sha-crypt`: one SHA-crypt check at passlib's default rounds (sha512-crypt 656,000, sha256-crypt
// 535,000) through the core's own path (parse, then verify on its worker thread), next to libxcrypt's C
// (`mkpasswd` from Debian's whois package: `apt-get install -y whois`) making the same hash in the same run. The two
// take turns; medians of REPEATS rounds (default 3). CPU time is the figure that holds on a shared machine: the
// core's is this process's (the main thread only waits), mkpasswd's is read from the children's CPU in
// /proc/self/stat. docs/performance.md quotes the output.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { parseCrypt, verifyCrypt } from '../src/hashing/crypt.js';

const repeats = Number(process.env.REPEATS ?? 3);
const CASES = [
  { method: 'sha-512', rounds: 656_000, salt: 'Fq8kz0Pm3Xw1Ab2C' },
  { method: 'sha-256', rounds: 535_000, salt: 'pQ7/2.mNpQ7/2.mN' },
] as const;
const PASSWORD = 'correct horse battery staple';
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU seconds of the children this process has waited for (utime + stime of finished children). */
function childrenCpuSeconds(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the command name: state is field 3, so cutime (16) and cstime (17) are at 13 and 14 here.
  return (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS_PER_SECOND;
}

function mkpasswd(method: string, rounds: number, salt: string): { hash: string; wall: number; cpu: number } {
  const [cpuBefore, started] = [childrenCpuSeconds(), performance.now()];
  const hash = execFileSync('mkpasswd', ['-m', method, '-R', String(rounds), '-S', salt, PASSWORD], { encoding: 'utf8' }).trim();
  return { hash, wall: (performance.now() - started) / 1000, cpu: childrenCpuSeconds() - cpuBefore };
}

async function core(hash: string): Promise<{ wall: number; cpu: number }> {
  const parsed = parseCrypt(hash);
  if (!parsed.ok) throw new Error(parsed.reason);
  const [cpuBefore, started] = [process.cpuUsage(), performance.now()];
  const matched = await verifyCrypt(PASSWORD, parsed.value);
  const wall = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  if (!matched) throw new Error(`the core does not match mkpasswd's ${hash}`);
  return { wall, cpu: (cpu.user + cpu.system) / 1e6 };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

try {
  execFileSync('mkpasswd', ['-m', 'sha-512', '-R', '1000', '-S', 'probeprobe', 'probe'], { stdio: 'ignore' });
} catch {
  process.stderr.write('mkpasswd is missing: apt-get install -y whois\n');
  process.exit(1);
}
// The first check starts the worker thread; the figures are for a thread already running, as at sign-in.
await core(mkpasswd('sha-512', 1000, 'warmupwarmup').hash);

process.stdout.write(`${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)} before the run, median of ${repeats}\n\n`);
process.stdout.write('| Check | mkpasswd (libxcrypt) CPU / wall | Core CPU / wall | Ratio, CPU | Ratio, wall |\n|---|---|---|---|---|\n');
for (const { method, rounds, salt } of CASES) {
  const c: Array<{ wall: number; cpu: number }> = [];
  const ours: Array<{ wall: number; cpu: number }> = [];
  for (let i = 0; i < repeats; i++) {
    const made = mkpasswd(method, rounds, salt);
    c.push(made);
    ours.push(await core(made.hash));
  }
  const [cCpu, cWall, oCpu, oWall] = [
    median(c.map((r) => r.cpu)),
    median(c.map((r) => r.wall)),
    median(ours.map((r) => r.cpu)),
    median(ours.map((r) => r.wall)),
  ];
  const name = `${method === 'sha-512' ? 'sha512' : 'sha256'}-crypt rounds=${rounds}`;
  const seconds = (value: number) => `${value.toFixed(2)} s`;
  process.stdout.write(
    `| ${name} | ${seconds(cCpu)} / ${seconds(cWall)} | ${seconds(oCpu)} / ${seconds(oWall)} | ${(cCpu / oCpu).toFixed(2)} × | ${(cWall / oWall).toFixed(2)} × |\n`,
  );
}
process.stdout.write(`\nload ${os.loadavg()[0].toFixed(1)} after the run; ratio = C time / core time (1 × is C's speed)\n`);
