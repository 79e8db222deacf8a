// The measurement shared by the hash-format benchmarks: per case, four sides in rounds that each start with a
// different side, medians of the per-round ratios, a Markdown table on stdout and the rounds in bench/results/.
// - primitive: the raw primitive with the same parameters on the same inputs;
// - format: the format's own verify on a hash parsed once (the ≥ 0.9 × goal);
// - full: PasswordHasher.verify as sign-in calls it, the same hash again and again (an INSTANT hash is then parsed
//   once and verified at once; a SCHEDULED one is detected, parsed, keyed for single flight and scheduled each time);
// - cold: the same with the hasher's cache of parsed INSTANT hashes off, as for an account not signed in to lately.
import { mkdirSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { detectFormat } from '../../src/hashing/formats.js';
import { PasswordHasher } from '../../src/hashing/registry.js';
import { median } from './stats.js';

export interface HashCase {
  name: string;
  /** The complete stored hash. */
  hash: string;
  password: string;
  /** One verification's worth of the primitive. */
  primitive: () => unknown;
}

interface Side {
  perSecond: number;
  cpuPerOpUs: number;
}

type SideName = 'primitive' | 'format' | 'full' | 'cold';
const SIDES: readonly SideName[] = ['primitive', 'format', 'full', 'cold'];

export function numberArgument(name: string, fallback: number): number {
  const prefix = `--${name}=`;
  return Number(process.argv.find((arg) => arg.startsWith(prefix))?.slice(prefix.length) ?? fallback);
}

async function measure(run: () => unknown, budgetMs: number): Promise<Side> {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let ops = 0;
  while (performance.now() - started < budgetMs || ops === 0) {
    await run();
    ops++;
  }
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return { perSecond: ops / elapsed, cpuPerOpUs: (cpu.user + cpu.system) / ops };
}

export async function benchHashCases(label: string, cases: HashCase[], { seconds, rounds }: { seconds: number; rounds: number }) {
  const options = {
    newHashAlgorithm: 'BCRYPT',
    bcryptLogRounds: 10,
    argon2: { iterations: 1, memoryKb: 64, parallelism: 1 },
    argon2PoolSize: 1,
    scryptPoolSize: 1,
    bcryptPoolSize: 1,
  };
  const hasher = new PasswordHasher(options);
  const uncached = new PasswordHasher({ ...options, instantHashCacheSize: 0 });
  const rows = [];
  for (const testCase of cases) {
    if ((await hasher.verify(testCase.password, testCase.hash)) !== 'MATCH')
      throw new Error(`${testCase.name}: the bench hash does not verify`);
    const format = detectFormat(testCase.hash)!;
    const parsed = format.parse(testCase.hash);
    if (!parsed.ok) throw new Error(`${testCase.name}: the bench hash does not parse`);
    const sides: Record<SideName, () => unknown> = {
      primitive: testCase.primitive,
      format: () => format.verify(testCase.password, parsed.value, {}),
      full: () => hasher.verify(testCase.password, testCase.hash),
      cold: () => uncached.verify(testCase.password, testCase.hash),
    };
    const measured: Array<Record<SideName, Side>> = [];
    for (let round = 0; round < rounds; round++) {
      // Each round starts with a different side, so a slow stretch of a shared machine does not always hit the same one.
      const order = SIDES.map((_, i, all) => all[(i + round) % all.length]);
      const result = {} as Record<SideName, Side>;
      for (const side of order) result[side] = await measure(sides[side], seconds * 1000);
      measured.push(result);
    }
    const perSecond = (side: SideName) => median(measured.map((round) => round[side].perSecond));
    const row = {
      format: testCase.name,
      primitivePerSecond: perSecond('primitive'),
      formatPerSecond: perSecond('format'),
      fullPerSecond: perSecond('full'),
      ratio: median(measured.map((round) => round.format.perSecond / round.primitive.perSecond)),
      cpuRatio: median(measured.map((round) => round.primitive.cpuPerOpUs / round.format.cpuPerOpUs)),
      fullRatio: median(measured.map((round) => round.full.perSecond / round.primitive.perSecond)),
      fullCpuRatio: median(measured.map((round) => round.primitive.cpuPerOpUs / round.full.cpuPerOpUs)),
      coldPerSecond: perSecond('cold'),
      coldRatio: median(measured.map((round) => round.cold.perSecond / round.primitive.perSecond)),
      coldCpuRatio: median(measured.map((round) => round.primitive.cpuPerOpUs / round.cold.cpuPerOpUs)),
      rounds: measured,
    };
    rows.push(row);
    process.stderr.write(`${row.format}: ${row.ratio.toFixed(2)}× format, ${row.fullRatio.toFixed(2)}× full path\n`);
  }

  const table = [
    '| Format | Raw primitive/s | Format verify/s | Ratio | CPU-time ratio | ' +
      'Full path/s | Ratio | CPU-time ratio | Uncached/s | Ratio | CPU-time ratio |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((row) => {
      const cells = [
        ...[row.format, row.primitivePerSecond, row.formatPerSecond, row.ratio, row.cpuRatio],
        ...[row.fullPerSecond, row.fullRatio, row.fullCpuRatio, row.coldPerSecond, row.coldRatio, row.coldCpuRatio],
      ];
      return `| ${cells.map((cell) => (typeof cell === 'number' ? cell.toFixed(cell < 10 ? 2 : 1) : cell)).join(' | ')} |`;
    }),
  ].join('\n');
  mkdirSync('bench/results', { recursive: true });
  const file = `bench/results/${label}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  writeFileSync(file, JSON.stringify({ seconds, rounds, rows }, null, 2));
  process.stdout.write(`${table}\n\nresults: ${file}\n`);
}
