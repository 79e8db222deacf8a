import fs from 'node:fs';
import type { BulkImportUser, SourceRecord } from './bulk-user.js';
import { KeptBytes } from './kept-bytes.js';

/** What an intent line keeps of a user: enough to find it in the core, never a password hash. */
export interface IntendedUser {
  user: string;
  account: Pick<BulkImportUser, 'externalUserId' | 'loginMethods'>;
}

/**
 * What this run sent, by record, in two append-only files read back in step with the export. Before each request
 * that creates users, one intent line per user, flushed to disk (`record\t?\t{"user","account"}`, in
 * `<export>.migrate-intent.tsv`); after its answer, the core id of each (`record\tuserId`; a million users add
 * ~45 MB once, instead of rewriting the state file). They tell the users this run created from the ones that were
 * there before, also to `migrate undo` after a run that never wrote its report: a user with an intent and no id
 * was sent when the core held no part of it, so whoever holds its accounts now was created by this run.
 */
export class SentLog {
  readonly intentPath: string;

  constructor(readonly path: string) {
    this.intentPath = path.replace(/\.migrate-sent\.tsv$/, '') + '.migrate-intent.tsv';
  }

  static pathFor(file: string): string {
    return `${file}.migrate-sent.tsv`;
  }

  clear(): void {
    fs.rmSync(this.path, { force: true });
    fs.rmSync(this.intentPath, { force: true });
  }

  append(entries: { record: number; userId: string }[]): void {
    if (entries.length === 0) return;
    fs.appendFileSync(this.path, entries.map((entry) => `${entry.record}\t${entry.userId}\n`).join(''));
  }

  /**
   * Written and flushed before the request is sent, so that no stop, however hard, hides what it created. Without
   * blocking: the batches around it go on being read and looked up while the disk flushes.
   */
  async appendIntents(lines: IntentLines): Promise<void> {
    if (lines.text.length === 0) return;
    const file = await fs.promises.open(this.intentPath, 'a');
    try {
      await file.write(lines.text.bytes);
      await file.datasync();
    } finally {
      lines.text.release();
      await file.close();
    }
  }

  /** The intent lines of users about to be sent, made while the batch before them is being imported. */
  static intentLines(records: SourceRecord[]): IntentLines {
    // Kept as bytes until the batch before is answered, written a part at a time (kept-bytes.ts says why).
    const bytes = new KeptBytes(records.length * INTENT_BYTES_PER_USER);
    let part = '';
    for (let i = 0; i < records.length; i++) {
      part += `${records[i].index + 1}\t?\t${intentJson(records[i])}\n`;
      if ((i + 1) % INTENT_LINES_PER_PART === 0) {
        bytes.append(part);
        part = '';
      }
    }
    bytes.append(part);
    return { text: bytes };
  }

  /** A reader of what earlier invocations wrote: the lines present now, not those this invocation appends. */
  reader(): SentLogReader {
    return new SentLogReader(this.path, this.intentPath);
  }
}

export interface IntentLines {
  text: KeptBytes;
}

// A first guess of a user's intent line; the lines grow past it when needed.
const INTENT_BYTES_PER_USER = 200;
const INTENT_LINES_PER_PART = 64;

export interface Sent {
  ids: readonly string[];
  /** Sent by an earlier invocation, whose answer may have been lost. */
  intended: boolean;
}

// One answer shared by every record of a fresh run.
const NOT_SENT: Sent = Object.freeze({ ids: Object.freeze([]), intended: false });

/** The reader of a run nothing was sent in before. */
export const NOTHING_SENT_BEFORE: Pick<SentLogReader, 'sentFor' | 'close'> = {
  sentFor: () => NOT_SENT,
  close: () => {},
};

export class SentLogReader {
  private readonly ids: LogLines;
  private readonly intents: LogLines;

  constructor(path: string, intentPath: string) {
    this.ids = new LogLines(path, true);
    this.intents = new LogLines(intentPath, false);
  }

  /** The ids sent for this 1-based record (more than one when a lost answer made its batch go twice). */
  idsFor(record: number): readonly string[] {
    return this.sentFor(record).ids;
  }

  /** Asked in increasing record order. */
  sentFor(record: number): Sent {
    const ids = this.ids.linesFor(record).map((line) => line.value);
    const intended = this.intents.linesFor(record).length > 0;
    return { ids, intended };
  }

  /** Every id line, then every intent line, in file order; for `migrate undo`. */
  *idLines(): Generator<{ record: number; userId: string }> {
    for (const line of this.ids.all()) yield { record: line.record, userId: line.value };
  }

  *intentLines(): Generator<{ record: number; intent?: IntendedUser }> {
    for (const line of this.intents.all()) yield { record: line.record, intent: parseIntent(line.value) };
  }

  close(): void {
    this.ids.close();
    this.intents.close();
  }
}

const CHUNK = 1024 * 1024;

interface Line {
  record: number;
  /** A core id, or the intent's JSON (read as latin1). */
  value: string;
}

/**
 * Reads one log forwards, for records asked in increasing order, keeping one chunk in memory. Batches append
 * their lines in record order, so the log is sorted; should it not be (a batch sent again after a hard stop, a
 * log edited by hand), the whole log is held in a map instead, as correctness matters more than memory then.
 */
class LogLines {
  private readonly descriptor: number | undefined;
  private readonly size: number;
  private offset = 0;
  private lines: string[] = [];
  private line = 0;
  private rest = '';
  private pending: Line | undefined;
  private readonly unsorted: Map<number, Line[]> | undefined;

  /** keepValues: false keeps only the record numbers of an unsorted log in memory (intents are only a mark then). */
  constructor(
    path: string,
    private readonly keepValues: boolean,
  ) {
    this.size = fs.existsSync(path) ? fs.statSync(path).size : 0;
    if (this.size === 0) return;
    this.descriptor = fs.openSync(path, 'r');
    if (!this.isSorted()) this.unsorted = this.readAll();
  }

  linesFor(record: number): Line[] {
    if (this.unsorted) return this.unsorted.get(record) ?? [];
    const found: Line[] = [];
    for (;;) {
      const entry = this.pending ?? this.next();
      if (entry === undefined || entry.record > record) {
        this.pending = entry;
        return found;
      }
      this.pending = undefined;
      if (entry.record === record) found.push(entry);
    }
  }

  *all(): Generator<Line> {
    this.rewind();
    for (let entry = this.next(); entry !== undefined; entry = this.next()) yield entry;
  }

  close(): void {
    if (this.descriptor !== undefined) fs.closeSync(this.descriptor);
  }

  private isSorted(): boolean {
    let last = 0;
    for (let entry = this.next(); entry !== undefined; entry = this.next()) {
      if (entry.record < last) return false;
      last = entry.record;
    }
    this.rewind();
    return true;
  }

  private readAll(): Map<number, Line[]> {
    this.rewind();
    const all = new Map<number, Line[]>();
    for (let entry = this.next(); entry !== undefined; entry = this.next()) {
      if (!this.keepValues) entry.value = '';
      const lines = all.get(entry.record);
      if (lines) lines.push(entry);
      else all.set(entry.record, [entry]);
    }
    return all;
  }

  private rewind(): void {
    this.offset = 0;
    this.lines = [];
    this.line = 0;
    this.rest = '';
    this.pending = undefined;
  }

  private next(): Line | undefined {
    for (;;) {
      while (this.line < this.lines.length) {
        const text = this.lines[this.line++];
        const tab = text.indexOf('\t');
        const value = tab === -1 ? '' : text.slice(tab + 1);
        if (value === '') continue;
        // An intent line: `record\t?\t{json}`.
        return { record: Number(text.slice(0, tab)), value: value.startsWith('?\t') ? value.slice(2) : value };
      }
      if (this.descriptor === undefined || this.offset >= this.size) {
        if (this.rest === '') return undefined;
        this.lines = [this.rest];
        this.line = 0;
        this.rest = '';
        continue;
      }
      const buffer = Buffer.alloc(Math.min(CHUNK, this.size - this.offset));
      const read = fs.readSync(this.descriptor, buffer, 0, buffer.length, this.offset);
      this.offset += read;
      // Read as latin1 (a byte, a character) so that a chunk boundary splits no character: intents are decoded
      // from UTF-8 when parsed.
      const text = this.rest + buffer.toString('latin1', 0, read);
      const end = text.lastIndexOf('\n');
      this.lines = text.slice(0, end + 1).split('\n');
      this.rest = text.slice(end + 1);
      this.line = 0;
      if (read === 0) this.offset = this.size;
    }
  }
}

// The JSON of what an intent line keeps, written field by field: the same text as JSON.stringify of an
// IntendedUser ({"user","account":{"externalUserId"?,"loginMethods":[{recipeId, email?, phoneNumber?,
// thirdPartyId?, thirdPartyUserId?}]}}), without copying each user into a new object first.
function intentJson(record: SourceRecord): string {
  const user = record.user!;
  let json = `{"user":${JSON.stringify(record.key)},"account":{`;
  if (user.externalUserId !== undefined) json += `"externalUserId":${JSON.stringify(user.externalUserId)},`;
  json += '"loginMethods":[';
  user.loginMethods.forEach((method, position) => {
    if (position > 0) json += ',';
    json += `{"recipeId":${JSON.stringify(method.recipeId)}`;
    if (method.email !== undefined) json += `,"email":${JSON.stringify(method.email)}`;
    if (method.phoneNumber !== undefined) json += `,"phoneNumber":${JSON.stringify(method.phoneNumber)}`;
    if (method.thirdPartyId !== undefined) json += `,"thirdPartyId":${JSON.stringify(method.thirdPartyId)}`;
    if (method.thirdPartyUserId !== undefined) json += `,"thirdPartyUserId":${JSON.stringify(method.thirdPartyUserId)}`;
    json += '}';
  });
  return `${json}]}}`;
}

function parseIntent(latin1: string): IntendedUser | undefined {
  try {
    return JSON.parse(Buffer.from(latin1, 'latin1').toString('utf8')) as IntendedUser;
  } catch {
    return undefined;
  }
}
