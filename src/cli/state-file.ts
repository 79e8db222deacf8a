import fs from 'node:fs';
import path from 'node:path';
import { CliError } from './cli-error.js';
import { identityMismatch, type RunIdentity } from './run-identity.js';

/** A user the core refused when it was queued (validation), kept so that later runs still report it. */
export interface Rejection {
  key: string;
  record: number;
  reason: string;
}

// Written after every acknowledged batch, so an interrupted run loses at most the batch in flight, and that
// one is recognised as already in the core when the run continues.
export interface MigrationState {
  version: 2;
  source: string;
  file: string;
  /** Set before the state is first saved; a file without it is from an older version. */
  identity?: RunIdentity;
  startedAt: string;
  updatedAt: string;
  /** Input records (0-based count from the start of the export) handled and acknowledged. */
  recordsDone: number;
  /** Users the core accepted into its queue, over all invocations of this run. */
  usersQueued: number;
  rejected: Rejection[];
  /** Core ids of the canary users this run imported one by one. */
  canaryCreated: { email: string; userId: string }[];
  /** Tenants this run created (an earlier invocation of it included): undo removes them once empty. */
  tenantsCreated?: string[];
}

export function statePathFor(file: string): string {
  return `${file}.migrate-state.json`;
}

export function newState(source: string, file: string, now: Date): MigrationState {
  return {
    version: 2,
    source,
    file: path.resolve(file),
    startedAt: now.toISOString(),
    updatedAt: now.toISOString(),
    recordsDone: 0,
    usersQueued: 0,
    rejected: [],
    canaryCreated: [],
  };
}

export type LoadedState = { state: MigrationState; staleBecause?: undefined } | { state?: undefined; staleBecause?: string };

/** The saved state of an earlier invocation of the same run; progress made for another core, export or options is stale. */
export function loadState(statePath: string, identity: RunIdentity): LoadedState {
  if (!fs.existsSync(statePath)) return {};
  let state: MigrationState;
  try {
    state = JSON.parse(fs.readFileSync(statePath, 'utf8')) as MigrationState;
  } catch {
    throw new CliError(`${statePath} is not a state file this tool wrote: move it away or pass --restart`);
  }
  if (state === null || typeof state !== 'object' || typeof state.recordsDone !== 'number') {
    throw new CliError(`${statePath} is not a state file this tool wrote: move it away or pass --restart`);
  }
  if (state.version !== 2 || state.identity === undefined) return { staleBecause: 'an older version of this command' };
  const mismatch = identityMismatch(state.identity, identity);
  return mismatch === undefined ? { state } : { staleBecause: mismatch };
}

export function saveState(statePath: string, state: MigrationState, now: Date): void {
  state.updatedAt = now.toISOString();
  const temporary = `${statePath}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`);
  fs.renameSync(temporary, statePath);
}
