import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CpuPerRequest } from './cpu-accounting.js';
import type { LoadResult } from './load.js';
import type { RoundPair } from './rounds.js';
import { resultsDir, type BenchSettings } from './settings.js';

export interface Figure {
  /** The headline number, in `unit`. */
  value: number;
  unit: string;
  p50Ms?: number;
  p99Ms?: number;
  peakRssMb?: number;
  count?: number;
  seconds?: number;
  failures?: number;
  /** CPU per operation in µs: the server process plus its PostgreSQL backends (or the whole ceiling process). */
  cpuUs?: number;
}

export interface Row {
  scenario: string;
  path: string;
  status: 'measured' | 'skipped' | 'failed';
  core?: Figure;
  ceiling?: Figure;
  ratio?: number;
  /**
   * Ceiling CPU per operation ÷ core CPU per operation. Unlike throughput it barely moves when other work
   * competes for the cores, so it is the number to trust on a busy machine; a core that cannot keep every
   * core busy shows up in `ratio` only.
   */
  cpuRatio?: number;
  goal: string;
  /** Undefined when the row has no goal or was not measured. */
  met?: boolean;
  notes: string[];
  /** Every ceiling/core pair behind `ratio` (the median of their ratios). */
  rounds?: RoundPair[];
}

export function skippedRow(scenario: string, path: string, goal: string, reason: string): Row {
  return { scenario, path, status: 'skipped', goal, notes: [reason] };
}

export function cpuRatioOf(core: Figure, ceiling: Figure): number | undefined {
  return core.cpuUs && ceiling.cpuUs ? ceiling.cpuUs / core.cpuUs : undefined;
}

/** Per-round ratios, lowest to highest: how far to trust the median on this machine. */
export function spreadNote(pairs: RoundPair[]): string {
  const ratios = pairs.map((pair) => pair.ratio).sort((a, b) => a - b);
  return `per-round ratios ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}`;
}

/** A load run as a table figure. */
export function loadFigure(result: LoadResult & { cpuPerRequest?: CpuPerRequest }, unit: string, peakRssMb: number): Figure {
  return {
    value: result.perSecond,
    unit,
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    peakRssMb,
    count: result.completed,
    seconds: result.seconds,
    failures: result.failures,
    cpuUs: result.cpuPerRequest && result.cpuPerRequest.processUs + result.cpuPerRequest.databaseUs,
  };
}

// Rounded down so that a ratio shown as meeting a ≥ goal really does.
const floor2 = (value: number) => (Math.floor(value * 100) / 100).toFixed(2);
const fixed = (value: number | undefined, digits = 0) => (value === undefined ? '' : value.toFixed(digits));
const figure = (f: Figure | undefined) => (f ? `${fixed(f.value, f.value < 100 ? 1 : 0)} ${f.unit}` : '–');
const latency = (f: Figure | undefined) => (f?.p50Ms === undefined ? '–' : `${fixed(f.p50Ms, 1)} / ${fixed(f.p99Ms, 1)}`);
const rss = (f: Figure | undefined) => (f?.peakRssMb === undefined ? '–' : `${fixed(f.peakRssMb)} MB`);

/** The run as a Markdown table (pastes into the README as is). */
export function formatTable(rows: Row[]): string {
  const header = [
    'Path',
    'Core',
    'p50 / p99 ms',
    'Core peak RSS',
    'Ceiling',
    'Ceiling p50 / p99 ms',
    'Ceiling peak RSS',
    'Ratio',
    'CPU-time ratio',
    'Goal',
    'Met',
  ];
  const lines = rows.map((row) => {
    if (row.status !== 'measured') {
      return [row.path, row.status, '', '', '', '', '', '', '', row.goal, row.notes[0] ?? ''];
    }
    const met = row.met === undefined ? '' : row.met ? 'yes' : '**no**';
    return [
      row.path,
      figure(row.core),
      latency(row.core),
      rss(row.core),
      figure(row.ceiling),
      latency(row.ceiling),
      rss(row.ceiling),
      row.ratio === undefined ? '–' : `${floor2(row.ratio)} ×`,
      row.cpuRatio === undefined ? '–' : `${floor2(row.cpuRatio)} ×`,
      row.goal,
      met,
    ];
  });
  const all = [header, header.map(() => '---'), ...lines];
  return all.map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

export function formatNotes(rows: Row[]): string {
  return rows
    .filter((row) => row.notes.length > 0 && row.status === 'measured')
    .map((row) => `- ${row.path}: ${row.notes.join('; ')}`)
    .join('\n');
}

export interface RunRecord {
  startedAt: string;
  finishedAt: string;
  machine: {
    cpus: number;
    cpuModel: string;
    memoryGb: number;
    node: string;
    platform: string;
    loadBefore: number[];
    busyBeforePercent: number;
  };
  settings: Omit<BenchSettings, 'databaseUrl'> & { database: string };
  rows: Row[];
}

export function machineInfo(busyBeforePercent: number): RunRecord['machine'] {
  return {
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(os.totalmem() / 1024 ** 3),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    loadBefore: os.loadavg(),
    busyBeforePercent,
  };
}

/** bench/results/<timestamp>.json; the folder is git-ignored. */
export function writeRecord(record: RunRecord): string {
  fs.mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `${record.startedAt.replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  return file;
}
