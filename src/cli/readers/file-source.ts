import fs from 'node:fs';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { boundedLines, type OverlongLine } from './record-limits.js';

const GZIP_MAGIC = [0x1f, 0x8b];

/** A file read as UTF-8 text chunks, gunzipped when it is gzip, with how far the reading got (for progress and ETA). */
export class FileSource {
  readonly totalBytes: number;
  readonly gzipped: boolean;
  private stream: fs.ReadStream | undefined;

  constructor(readonly path: string) {
    this.totalBytes = fs.statSync(path).size;
    this.gzipped = startsWithGzipMagic(path);
  }

  /** Bytes of the file itself read so far (compressed bytes for a gzip file), against totalBytes. */
  bytesRead(): number {
    return this.stream?.bytesRead ?? 0;
  }

  /** UTF-8 text chunks; the decoder keeps characters split across chunks whole. */
  chunks(): AsyncIterable<string> {
    return this.open().setEncoding('utf8') as AsyncIterable<string>;
  }

  /** Lines of at most MAX_RECORD_CHARS; a longer one is dropped as it is read and given as an OverlongLine. */
  lines(): AsyncIterable<string | OverlongLine> {
    return boundedLines(this.chunks());
  }

  private open(): Readable {
    if (this.stream) throw new Error(`${this.path} is already being read`);
    // 1 MiB reads: fewer system calls than the 64 KiB default, still a small fixed buffer.
    this.stream = fs.createReadStream(this.path, { highWaterMark: 1024 * 1024 });
    if (!this.gzipped) return this.stream;
    const gunzip = zlib.createGunzip();
    this.stream.on('error', (error) => gunzip.destroy(error));
    return this.stream.pipe(gunzip);
  }
}

// The content decides, not the name: exports get renamed, and a .gz name on a plain file would otherwise fail.
function startsWithGzipMagic(path: string): boolean {
  const descriptor = fs.openSync(path, 'r');
  try {
    const head = Buffer.alloc(2);
    const read = fs.readSync(descriptor, head, 0, 2, 0);
    return read === 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  } finally {
    fs.closeSync(descriptor);
  }
}
