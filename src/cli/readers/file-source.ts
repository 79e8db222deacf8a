import fs from 'node:fs';
import readline from 'node:readline';

/** A file read as UTF-8 text chunks, with how far the reading got (for progress and ETA). */
export class FileSource {
  readonly totalBytes: number;
  private stream: fs.ReadStream | undefined;

  constructor(readonly path: string) {
    this.totalBytes = fs.statSync(path).size;
  }

  bytesRead(): number {
    return this.stream?.bytesRead ?? 0;
  }

  /** UTF-8 text chunks; the decoder keeps characters split across chunks whole. */
  chunks(): AsyncIterable<string> {
    return this.open().setEncoding('utf8') as AsyncIterable<string>;
  }

  lines(): AsyncIterable<string> {
    return readline.createInterface({ input: this.open(), crlfDelay: Infinity });
  }

  private open(): fs.ReadStream {
    if (this.stream) throw new Error(`${this.path} is already being read`);
    // 1 MiB reads: fewer system calls than the 64 KiB default, still a small fixed buffer.
    this.stream = fs.createReadStream(this.path, { highWaterMark: 1024 * 1024 });
    return this.stream;
  }
}
