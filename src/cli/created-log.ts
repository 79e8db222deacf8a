import fs from 'node:fs';
import type { CreatedList, CreatedUser } from './results.js';

// Entries written per append.
const FLUSH_EVERY = 1000;

/**
 * The users this run created, one JSON line each, in a side file instead of memory: a million of them would
 * otherwise stay in the command for the whole run. The report copies them into its `created` list (what
 * `migrate undo` reads) when it is written.
 */
export class CreatedLog implements CreatedList {
  private buffer: CreatedUser[] = [];

  constructor(readonly path: string) {}

  static pathFor(file: string): string {
    return `${file}.migrate-created.ndjson`;
  }

  /** Starts the list of this invocation: every user is settled again, so it lists them all. */
  clear(): void {
    this.buffer = [];
    fs.rmSync(this.path, { force: true });
  }

  add(entry: CreatedUser): void {
    this.buffer.push(entry);
    if (this.buffer.length >= FLUSH_EVERY) this.flush();
  }

  flush(): void {
    if (this.buffer.length === 0) return;
    fs.appendFileSync(this.path, this.buffer.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
    this.buffer = [];
  }

  /**
   * The entries as the JSON lines they were written as, in the order they were added: chunks of whole lines, each
   * ending in a line feed, as bytes. A chunk is valid until the next one is asked for (its buffer is read into again).
   */
  *lineChunks(): Generator<Buffer> {
    this.flush();
    if (!fs.existsSync(this.path)) return;
    const descriptor = fs.openSync(this.path, 'r');
    try {
      let buffer = Buffer.allocUnsafe(READ_BYTES);
      // Bytes after the last line feed of a read: the start of a line the next read ends.
      let kept = 0;
      for (;;) {
        if (kept === buffer.length) buffer = Buffer.concat([buffer, Buffer.allocUnsafe(buffer.length)]);
        const read = fs.readSync(descriptor, buffer, kept, buffer.length - kept, null);
        const filled = kept + read;
        const end = read === 0 ? filled : buffer.lastIndexOf(LINE_FEED, filled - 1) + 1;
        if (end > 0) yield buffer.subarray(0, end);
        if (read === 0) return;
        buffer.copy(buffer, 0, end, filled);
        kept = filled - end;
      }
    } finally {
      fs.closeSync(descriptor);
    }
  }
}

const READ_BYTES = 1024 * 1024;
const LINE_FEED = 0x0a;
