import fs from 'node:fs';

/**
 * The core id of every user this run queued, by record: appended after each acknowledged batch (a million
 * users add ~45 MB once, instead of rewriting the state file), read back to tell the users this run created
 * from the ones that were there before.
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

  /** 1-based record number → the ids sent for it (more than one when a lost answer made the batch go twice). */
  read(): Map<number, string[]> {
    const sent = new Map<number, string[]>();
    if (!fs.existsSync(this.path)) return sent;
    for (const line of fs.readFileSync(this.path, 'utf8').split('\n')) {
      const [record, userId] = line.split('\t');
      if (userId === undefined || userId === '') continue;
      const ids = sent.get(Number(record));
      if (ids) ids.push(userId);
      else sent.set(Number(record), [userId]);
    }
    return sent;
  }
}
