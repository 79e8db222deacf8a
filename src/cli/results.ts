import { summariseMethod, type MethodSummary, type SourceRecord } from './bulk-user.js';

export type Stage = 'source' | 'skipped' | 'validation' | 'import' | 'conflict';

/** A user that did not (or, in a dry run, would not) end up in the core. */
export interface NotImported {
  user: string;
  /** 1-based position in the export, when known (queue rows do not carry it). */
  record?: number;
  stage: Stage;
  reason: string;
}

export interface Collision {
  user: string;
  record: number;
  imported: MethodSummary;
  notImported: MethodSummary[];
}

export interface CanaryOutcome {
  email: string;
  result: string;
}

/** Everything the report needs, filled in as the run goes. */
export class Results {
  read = 0;
  /** Records that map to a user the core can take. */
  sendable = 0;
  /** Canary users imported one by one (they are not queued). */
  importedOneByOne = 0;
  /** Queue rows refused only because the same user was already there: sent twice, or by an earlier run. */
  alreadyImported = 0;
  /** Queue rows not yet processed when the run stopped waiting. */
  stillQueued = 0;
  /** Dry run only. */
  wouldImport = 0;
  readonly notImported: NotImported[] = [];
  readonly collisions: Collision[] = [];
  readonly canary: CanaryOutcome[] = [];
  // Kept up to date on every add: progress asks for the counts after every record.
  private readonly stageCounts = new Map<Stage, number>();

  add(entry: NotImported): void {
    this.notImported.push(entry);
    this.stageCounts.set(entry.stage, this.count(entry.stage) + 1);
  }

  /** Tallies what the export itself says about a record, before anything is sent. */
  noteRecord(record: SourceRecord): void {
    this.read++;
    if (record.user) this.sendable++;
    if (record.problem) {
      this.add({
        user: record.key,
        record: record.index + 1,
        stage: record.problem.kind === 'skipped' ? 'skipped' : 'source',
        reason: record.problem.reason,
      });
    } else if (record.user && record.collisions.length > 0) {
      const imported = summariseMethod(record.user.loginMethods[0]);
      this.collisions.push({ user: record.key, record: record.index + 1, imported, notImported: record.collisions });
    }
  }

  count(stage: Stage): number {
    return this.stageCounts.get(stage) ?? 0;
  }

  /** Users that should be in the core but are not: invalid in the export, refused or failed. */
  get failures(): number {
    return this.notImported.length - this.count('skipped');
  }

  /**
   * Users of the export now in the core. Counted from what did not make it rather than from what was
   * sent, because a batch whose answer was lost may have been stored as well as sent again.
   */
  get imported(): number {
    return Math.max(0, this.sendable - this.count('import') - this.count('validation') - this.stillQueued);
  }
}
