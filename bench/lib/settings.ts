import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const defaultDatabaseUrl = 'postgresql://postgres@127.0.0.1:5432/identity_core_dev';
export const resultsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../results');

export interface BenchSettings {
  databaseUrl: string;
  /** Scenario names to run; empty = all. */
  only: string[];
  /** Length of one measured load run, in seconds. */
  seconds: number;
  /** Ceiling and core are measured as this many back-to-back pairs; the ratio is the median pair's. */
  rounds: number;
  cores: number;
  logLevel: string;
  bulkUsers: number;
  build: boolean;
  /** Set by --cpu-prof: the core processes write V8 CPU profiles here. */
  cpuProfileDir?: string;
  /** --core-env KEY=VALUE: extra core settings, to try a fix without editing src/. */
  coreEnv: Record<string, string>;
  /** --core-script=PATH: a different build of the core to measure (default dist/server.js). */
  coreScript?: string;
  /** --keep-schemas: leave the schemas in place for EXPLAIN ANALYZE afterwards (drop them by hand). */
  keepSchemas: boolean;
  /** --one (npm run bench:one): at least one scenario name is required. */
  requireName: boolean;
}

export const usage = `usage: vite-node bench/run.ts [--one] [scenario ...] [--quick] [--seconds=N] [--rounds=N]
       [--bulk-users=N] [--log-level=LEVEL] [--cpu-prof[=DIR]] [--core-env KEY=VALUE]... [--core-script=PATH]
       [--keep-schemas] [--no-build]`;

export function parseSettings(argv: string[], env: NodeJS.ProcessEnv): BenchSettings {
  const settings: BenchSettings = {
    databaseUrl: env.DATABASE_URL || defaultDatabaseUrl,
    only: [],
    seconds: 4,
    rounds: 5,
    cores: os.availableParallelism(),
    logLevel: 'WARN',
    bulkUsers: 1_000_000,
    build: true,
    coreEnv: {},
    keepSchemas: false,
    requireName: false,
  };
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    const [flag, value] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    switch (flag) {
      case '--quick':
        Object.assign(settings, { seconds: 2, rounds: 1, bulkUsers: 20_000 });
        break;
      case '--seconds':
        settings.seconds = positive(flag, value);
        break;
      case '--rounds':
        settings.rounds = positive(flag, value);
        break;
      case '--bulk-users':
        settings.bulkUsers = positive(flag, value);
        break;
      case '--log-level':
        settings.logLevel = required(flag, value).toUpperCase();
        break;
      case '--cpu-prof':
        settings.cpuProfileDir = value ?? path.join(resultsDir, 'profiles');
        break;
      case '--core-env': {
        const pair = value ?? argv[++index];
        const match = /^([A-Z0-9_]+)=(.*)$/.exec(pair ?? '');
        if (!match) throw new Error(`--core-env needs KEY=VALUE\n${usage}`);
        settings.coreEnv[match[1]] = match[2];
        break;
      }
      case '--core-script':
        settings.coreScript = path.resolve(required(flag, value));
        break;
      case '--one':
        settings.requireName = true;
        break;
      case '--keep-schemas':
        settings.keepSchemas = true;
        break;
      case '--no-build':
        settings.build = false;
        break;
      case '--help':
        throw new Error(usage);
      default:
        if (arg.startsWith('-')) throw new Error(`unknown option ${arg}\n${usage}`);
        settings.only.push(arg);
    }
  }
  return settings;
}

function required(flag: string, value: string | undefined): string {
  if (value === undefined || value === '') throw new Error(`${flag} needs a value\n${usage}`);
  return value;
}

function positive(flag: string, value: string | undefined): number {
  const number = Number(required(flag, value));
  if (!Number.isFinite(number) || number <= 0) throw new Error(`${flag} must be a positive number`);
  return number;
}
