import { summariseMethod, type LoginMethod, type MethodSummary, type SourceRecord } from './bulk-user.js';
import { weakFormatOf } from '../hashing/formats.js';

/**
 * Why a user did not (or, in a dry run, would not) end up in the core. `source`, `duplicate` and `validation`
 * count as invalid; `conflict`, `import` and `lost` as failed; `skipped` on its own.
 */
export type Stage = 'source' | 'duplicate' | 'skipped' | 'validation' | 'conflict' | 'import' | 'lost';

const INVALID_STAGES: readonly Stage[] = ['source', 'duplicate', 'validation'];
const FAILED_STAGES: readonly Stage[] = ['conflict', 'import', 'lost'];

export interface NotImported {
  user: string;
  /** 1-based position in the export. */
  record: number;
  stage: Stage;
  reason: string;
}

export interface Collision {
  user: string;
  record: number;
  imported: MethodSummary;
  notImported: MethodSummary[];
}

/** A user imported without some of the export's data: each entry is `<field>: <why>`. */
export interface NotCarried {
  user: string;
  record: number;
  fields: string[];
}

/** What a user was sent with beyond login methods and profile: roles, second factors, recovery codes, marks. */
export interface Carried {
  user: string;
  record: number;
  items: string[];
}

/** A user this run created: what `migrate undo` removes. */
export interface CreatedUser {
  user: string;
  record: number;
  /** The core's own id of the user (not the old id), so that undo can never hit another user. */
  userId: string;
}

/**
 * A user an earlier run created that this run completed with what its record carries and the core lacked (in a
 * dry run: would complete, `added` being what the lookup showed missing). Not in `created`: undo leaves it.
 */
export interface CompletedUser {
  user: string;
  record: number;
  userId: string;
  /** Plain words, never a secret: "emailpassword login method", "2 TOTP devices", "metadata keys plan". */
  added: string[];
}

/** Where the users a run created go: a side file for a real run (created-log.ts), memory otherwise. */
export interface CreatedList {
  add(entry: CreatedUser): void;
  /** The entries as JSON lines, in the order added: chunks of whole lines, each ending in a line feed, as bytes. */
  lineChunks(): Iterable<Buffer>;
}

export class CreatedInMemory implements CreatedList {
  private readonly entries: CreatedUser[] = [];

  add(entry: CreatedUser): void {
    this.entries.push(entry);
  }

  *lineChunks(): Generator<Buffer> {
    if (this.entries.length > 0) yield Buffer.from(this.entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
  }
}

export interface CanaryOutcome {
  email: string;
  result: string;
}

/** Everything the report needs, filled in by the one pass that settles each user. */
export class Results {
  read = 0;
  /** Created by this run and held by the core now. */
  imported = 0;
  /** Held by the core before this run sent them. */
  alreadyImported = 0;
  /** Sent, and still in the core's queue when the run stopped waiting. */
  stillQueued = 0;
  /** Dry run only. */
  wouldImport = 0;
  /** Users of the export whose password hash is in a format that is fast to guess. */
  weakHashes = 0;
  readonly notImported: NotImported[] = [];
  readonly collisions: Collision[] = [];
  readonly notCarried: NotCarried[] = [];
  readonly carried: Carried[] = [];
  /** Held by the core before this run, and completed by it (dry run: would be). */
  readonly completed: CompletedUser[] = [];
  readonly canary: CanaryOutcome[] = [];
  /** Passkeys found per relying-party id ('' when the export does not say), and how many of them are sent. */
  readonly passkeyRpIds = new Map<string, { found: number; carried: number }>();
  /** The core's webauthn_rp_ids (null: unset), when asked. */
  coreRpIds?: readonly string[] | null;
  private readonly stageCounts = new Map<Stage, number>();

  constructor(readonly created: CreatedList = new CreatedInMemory()) {}

  add(entry: NotImported): void {
    this.notImported.push(entry);
    this.stageCounts.set(entry.stage, this.count(entry.stage) + 1);
  }

  /** Tallies what the export itself says about a record, before the core is asked. */
  noteRecord(record: SourceRecord): void {
    this.read++;
    if (record.problem) {
      const stage = record.problem.kind === 'invalid' ? 'source' : record.problem.kind;
      this.add({ user: record.key, record: record.index + 1, stage, reason: record.problem.reason });
      return;
    }
    if (!record.user) return;
    if (record.passkeyRpIds !== undefined) this.notePasskeys(record);
    const weak = (method: LoginMethod) =>
      method.passwordHash !== undefined && weakFormatOf(method.passwordHash, method.hashingAlgorithm) !== undefined;
    if (record.user.loginMethods.some(weak)) this.weakHashes++;
    if (record.collisions.length > 0) {
      const imported = summariseMethod(record.user.loginMethods[0]);
      this.collisions.push({ user: record.key, record: record.index + 1, imported, notImported: record.collisions });
    }
    if (record.notCarried) this.notCarried.push({ user: record.key, record: record.index + 1, fields: record.notCarried });
    if (record.carried) this.carried.push({ user: record.key, record: record.index + 1, items: record.carried });
  }

  private notePasskeys(record: SourceRecord): void {
    const sent = record.user!.loginMethods.flatMap((method) => method.credentials ?? []);
    for (const rpId of record.passkeyRpIds!) {
      const entry = this.passkeyRpIds.get(rpId) ?? { found: 0, carried: 0 };
      entry.found++;
      this.passkeyRpIds.set(rpId, entry);
    }
    for (const credential of sent) {
      const entry = this.passkeyRpIds.get(credential.rpId);
      if (entry !== undefined) entry.carried++;
    }
  }

  noteCreated(entry: CreatedUser): void {
    this.imported++;
    this.created.add(entry);
  }

  noteCompleted(entry: CompletedUser): void {
    this.completed.push(entry);
  }

  count(stage: Stage): number {
    return this.stageCounts.get(stage) ?? 0;
  }

  get invalid(): number {
    return INVALID_STAGES.reduce((sum, stage) => sum + this.count(stage), 0);
  }

  get failed(): number {
    return FAILED_STAGES.reduce((sum, stage) => sum + this.count(stage), 0);
  }
}
