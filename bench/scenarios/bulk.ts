import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { skippedRow, type Row } from '../lib/report.js';
import type { Scenario } from '../lib/scenario.js';

const name = 'bulk-import';
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// bench/bulk-import.ts belongs to the bulk-import work; this scenario only runs it and reads its summary lines.
const script = path.join(repoRoot, 'bench/bulk-import.ts');
const viteNode = path.join(repoRoot, 'node_modules/vite-node/vite-node.mjs');
const timeLimitMs = 15 * 60_000;

interface BulkSummary {
  users: number;
  endToEndSeconds: number;
  endToEndPerSecond: number;
  copySeconds: number;
  copyPerSecond: number;
  enqueueSeconds?: number;
  peakRssMb?: number;
}

function runScript(databaseUrl: string, users: number, log: (message: string) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [viteNode, script, String(users)], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) =>
      String(chunk)
        .split('\n')
        .filter(Boolean)
        .forEach((line) => log(`  | ${line}`)),
    );
    const timer = setTimeout(() => child.kill('SIGTERM'), timeLimitMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`bench/bulk-import.ts exited with ${code}: ${stdout.slice(-500)}`));
    });
  });
}

/** Reads the summary lines bench/bulk-import.ts prints, e.g. `end to end (queue empty)  12.30 s  (81300 users/s)`. */
export function parseSummary(output: string): BulkSummary {
  const timed = (prefix: RegExp) => {
    const match = new RegExp(`^${prefix.source}.*?([\\d.]+) s\\s+\\((\\d+) users/s\\)`, 'm').exec(output);
    return match ? { seconds: Number(match[1]), perSecond: Number(match[2]) } : undefined;
  };
  const users = /^users\s+(\d+)/m.exec(output);
  const endToEnd = timed(/end to end/);
  const copy = timed(/COPY ceiling/);
  if (!users || !endToEnd || !copy) throw new Error(`unexpected output from bench/bulk-import.ts:\n${output}`);
  const rss = /^core peak RSS\s+([\d.]+) MB/m.exec(output);
  return {
    users: Number(users[1]),
    endToEndSeconds: endToEnd.seconds,
    endToEndPerSecond: endToEnd.perSecond,
    copySeconds: copy.seconds,
    copyPerSecond: copy.perSecond,
    enqueueSeconds: timed(/enqueue/)?.seconds,
    peakRssMb: rss ? Number(rss[1]) : undefined,
  };
}

export const bulkImportScenario: Scenario = {
  name,
  summary: 'POST /bulk-import/users until the queue is empty vs COPY of the same rows (runs bench/bulk-import.ts)',
  async run(context) {
    const { settings, log } = context;
    const users = settings.bulkUsers;
    const label = `bulk import, ${users.toLocaleString('en-US')} users (enqueue + queue drained)`;
    if (!fs.existsSync(script)) return [skippedRow(name, label, '≥ 0.25 ×', 'bench/bulk-import.ts not written yet')];
    const summary = parseSummary(await runScript(settings.databaseUrl, users, log));
    const ratio = summary.endToEndPerSecond / summary.copyPerSecond;
    const million = 1_000_000;
    const projected = million / summary.endToEndPerSecond;
    const notes = [
      'the core runs from src/ under vite-node (bench/bulk-import.ts starts it), so its RSS includes the loader',
      summary.enqueueSeconds === undefined ? '' : `enqueue alone took ${summary.enqueueSeconds.toFixed(1)} s`,
    ].filter(Boolean);
    const rows: Row[] = [
      {
        scenario: name,
        path: label,
        status: 'measured',
        core: {
          value: summary.endToEndPerSecond,
          unit: 'users/s',
          peakRssMb: summary.peakRssMb,
          count: summary.users,
          seconds: summary.endToEndSeconds,
        },
        ceiling: { value: summary.copyPerSecond, unit: 'users/s', count: summary.users, seconds: summary.copySeconds },
        ratio,
        goal: '≥ 0.25 ×',
        met: ratio >= 0.25,
        notes,
      },
      {
        scenario: name,
        path: users === million ? '1M users, wall time' : `1M users, wall time (projected from ${users.toLocaleString('en-US')})`,
        status: 'measured',
        core: { value: users === million ? summary.endToEndSeconds : projected, unit: 's' },
        goal: '≤ 30 s',
        met: (users === million ? summary.endToEndSeconds : projected) <= 30,
        notes: users === million ? [] : ['linear projection; run with --bulk-users=1000000 for the real figure'],
      },
    ];
    return rows;
  },
};
