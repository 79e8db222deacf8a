import fs from 'node:fs';

/**
 * The core id of every user this run queued, by record: appended after each acknowledged batch (a million
 * users add ~45 MB once, instead of rewriting the state file), read back in step with the export to tell the
 * users this run created from the ones that were there before.
 */
export class SentLog {
  constructor(readonly path: string) {}

  static pathFor(file: string): string {
    return `${file}.migrate-sent.tsv`;
  }

  clear(): void {
    fs.rmSync(this.path, { force: true });
  }

  append(entries: { record: number; userId: string }[]): void {
    if (entries.length === 0) return;
    fs.appendFileSync(this.path, entries.map((entry) => `${entry.record}\t${entry.userId}\n`).join(''));
  }

  /** A reader of what earlier invocations wrote: the lines present now, not those this invocation appends. */
  reader(): SentLogReader {
    return new SentLogReader(this.path);
  }
}

const CHUNK = 1024 * 1024;

/**
 * Reads the log forwards, for records asked in increasing order, keeping one chunk in memory. Batches append
 * their lines in record order, so the log is sorted; should it not be (edited by hand), the whole log is held
 * in a map instead, as correctness matters more than memory then.
 */
export class SentLogReader {
  private readonly descriptor: number | undefined;
  private readonly size: number;
  private offset = 0;
  private lines: string[] = [];
  private line = 0;
  private rest = '';
  private pending: { record: number; userId: string } | undefined;
  private readonly unsorted: Map<number, string[]> | undefined;

  constructor(path: string) {
    this.size = fs.existsSync(path) ? fs.statSync(path).size : 0;
    if (this.size === 0) return;
    this.descriptor = fs.openSync(path, 'r');
    if (!this.isSorted()) this.unsorted = this.readAll();
  }

  /** The ids sent for this 1-based record (more than one when a lost answer made its batch go twice). */
  idsFor(record: number): string[] {
    if (this.unsorted) return this.unsorted.get(record) ?? [];
    const ids: string[] = [];
    for (;;) {
      const entry = this.pending ?? this.next();
      if (entry === undefined || entry.record > record) {
        this.pending = entry;
        return ids;
      }
      this.pending = undefined;
      if (entry.record === record) ids.push(entry.userId);
    }
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

  private readAll(): Map<number, string[]> {
    this.rewind();
    const all = new Map<number, string[]>();
    for (let entry = this.next(); entry !== undefined; entry = this.next()) {
      const ids = all.get(entry.record);
      if (ids) ids.push(entry.userId);
      else all.set(entry.record, [entry.userId]);
    }
    return all;
  }

  private rewind(): void {
    this.offset = 0;
    this.lines = [];
    this.line = 0;
    this.rest = '';
  }

  private next(): { record: number; userId: string } | undefined {
    for (;;) {
      while (this.line < this.lines.length) {
        const [record, userId] = this.lines[this.line++].split('\t');
        if (userId !== undefined && userId !== '') return { record: Number(record), userId };
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
      // Ids and record numbers are ASCII: a chunk boundary cannot split a character.
      const text = this.rest + buffer.toString('latin1', 0, read);
      const end = text.lastIndexOf('\n');
      this.lines = text.slice(0, end + 1).split('\n');
      this.rest = text.slice(end + 1);
      this.line = 0;
      if (read === 0) this.offset = this.size;
    }
  }
}
