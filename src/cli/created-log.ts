import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { CreatedList, CreatedUser } from './results.js';

// Entries written per append, and read per chunk.
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

  /** The entries as the JSON lines they were written as, in the order they were added, `size` at a time. */
  *jsonChunks(size = FLUSH_EVERY): Generator<string[]> {
    this.flush();
    if (!fs.existsSync(this.path)) return;
    const descriptor = fs.openSync(this.path, 'r');
    try {
      const buffer = Buffer.alloc(1024 * 1024);
      // Keeps a character split across two reads whole.
      const decoder = new StringDecoder('utf8');
      let rest = '';
      let chunk: string[] = [];
      for (;;) {
        const read = fs.readSync(descriptor, buffer, 0, buffer.length, null);
        const text = rest + (read === 0 ? decoder.end() : decoder.write(buffer.subarray(0, read)));
        const end = read === 0 ? text.length : text.lastIndexOf('\n') + 1;
        rest = text.slice(end);
        for (const line of text.slice(0, end).split('\n')) {
          if (line === '') continue;
          chunk.push(line);
          if (chunk.length >= size) {
            yield chunk;
            chunk = [];
          }
        }
        if (read === 0) break;
      }
      if (chunk.length > 0) yield chunk;
    } finally {
      fs.closeSync(descriptor);
    }
  }
}
