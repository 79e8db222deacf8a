import fs from 'node:fs';
import path from 'node:path';
import { CliError } from './cli-error.js';

/** A user the core refused when it was queued (validation), kept so that later runs still report it. */
export interface Rejection {
  key: string;
  record: number;
  reason: string;
}

// Written after every acknowledged batch, so an interrupted run loses at most the batch in flight,
// and that one is recognised as "already imported" when it is sent again.
export interface MigrationState {
  version: 1;
  source: string;
  file: string;
  fileSize: number;
  fileMtimeMs: number;
  startedAt: string;
  updatedAt: string;
  /** Input records (0-based count from the start of the export) handled and acknowledged. */
  recordsDone: number;
  /** Users the core accepted into its queue, over all runs. */
  usersQueued: number;
  rejected: Rejection[];
  /** Lower-cased emails imported one by one by --check-password; the bulk run leaves them out. */
  canaryImported: string[];
  /** FAILED queue rows that were there before this migration began: not ours to report. */
  preexistingFailedIds: string[];
}

export function statePathFor(file: string): string {
  return `${file}.migrate-state.json`;
}

export function newState(source: string, file: string, now: Date): MigrationState {
  const stat = fs.statSync(file);
  return {
    version: 1,
    source,
    file: path.resolve(file),
    fileSize: stat.size,
    fileMtimeMs: stat.mtimeMs,
    startedAt: now.toISOString(),
    updatedAt: now.toISOString(),
    recordsDone: 0,
    usersQueued: 0,
    rejected: [],
    canaryImported: [],
    preexistingFailedIds: [],
  };
}

/** The saved state of an earlier run of the same command, if any. */
export function loadState(statePath: string, source: string, file: string): MigrationState | undefined {
  if (!fs.existsSync(statePath)) return undefined;
  let state: MigrationState;
  try {
    state = JSON.parse(fs.readFileSync(statePath, 'utf8')) as MigrationState;
  } catch {
    throw new CliError(`${statePath} is not a state file this tool wrote: move it away or pass --restart`);
  }
  if (state.version !== 1 || typeof state.recordsDone !== 'number') {
    throw new CliError(`${statePath} is not a state file this tool wrote: move it away or pass --restart`);
  }
  if (state.source !== source) {
    throw new CliError(`${statePath} belongs to a "${state.source}" migration, not "${source}": pass --restart to start over`);
  }
  const stat = fs.statSync(file);
  if (stat.size !== state.fileSize || Math.trunc(stat.mtimeMs) !== Math.trunc(state.fileMtimeMs)) {
    throw new CliError(`${file} changed since ${statePath} was written, so the saved position is meaningless: pass --restart to start over`);
  }
  return state;
}

export function saveState(statePath: string, state: MigrationState, now: Date): void {
  state.updatedAt = now.toISOString();
  const temporary = `${statePath}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`);
  fs.renameSync(temporary, statePath);
}
