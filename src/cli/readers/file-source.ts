import fs from 'node:fs';
import { addAbortSignal, Transform, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import { CliError } from '../cli-error.js';
import { utf8Chunks } from '../utf8-text.js';
import { boundedLines, type OverlongLine } from './record-limits.js';

const GZIP_MAGIC = [0x1f, 0x8b];

// Exports compress 5–20 times; a gzip bomb over a thousand. Past this ratio and this size the file is refused
// instead of being decompressed for minutes (memory stays bounded either way: records are).
const MAX_GZIP_RATIO = 200;
const GZIP_RATIO_FLOOR = 64 * 1024 * 1024;

/** How many bytes a gzip file of `totalBytes` may decompress to before it is refused as a bomb. */
export function gzipOutputLimit(totalBytes: number): number {
  return Math.max(GZIP_RATIO_FLOOR, totalBytes * MAX_GZIP_RATIO);
}

export const gzipBombError = (path: string) =>
  new CliError(
    `${path} decompresses to more than ${MAX_GZIP_RATIO} times its size: refused as a gzip bomb (decompress it yourself if it is a real export)`,
  );

export const truncatedGzipError = (path: string) =>
  new CliError(`${path} is a truncated gzip file (it ends before its data does): download or export it again`);

export const unreadableGzipError = (path: string, reason: string) => new CliError(`${path} is not a readable gzip file (${reason})`);

/** A file read as UTF-8 text chunks, gunzipped when it is gzip, with how far the reading got (for progress and ETA). */
export class FileSource {
  readonly totalBytes: number;
  readonly gzipped: boolean;
  private stream: fs.ReadStream | undefined;

  /** signal: Ctrl-C or SIGTERM stops the read at once, even inside a record too long to yield. */
  constructor(
    readonly path: string,
    private readonly signal?: AbortSignal,
  ) {
    this.totalBytes = fs.statSync(path).size;
    this.gzipped = startsWithGzipMagic(path);
  }

  /** Bytes of the file itself read so far (compressed bytes for a gzip file), against totalBytes. */
  bytesRead(): number {
    return this.stream?.bytesRead ?? 0;
  }

  /** UTF-8 text chunks; the decoder keeps characters split across chunks whole. */
  chunks(): AsyncIterable<string> {
    return utf8Chunks(this.open());
  }

  /** Lines of at most MAX_RECORD_CHARS; a longer one is dropped as it is read and given as an OverlongLine. */
  lines(): AsyncIterable<string | OverlongLine> {
    return boundedLines(this.chunks());
  }

  private open(): Readable {
    if (this.stream) throw new Error(`${this.path} is already being read`);
    // 1 MiB reads: fewer system calls than the 64 KiB default, still a small fixed buffer.
    this.stream = fs.createReadStream(this.path, { highWaterMark: 1024 * 1024 });
    if (!this.gzipped) return this.signal ? addAbortSignal(this.signal, this.stream) : this.stream;
    const gunzip = zlib.createGunzip();
    const limit = gzipOutputLimit(this.totalBytes);
    let decompressed = 0;
    const { path } = this;
    const bounded = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        decompressed += chunk.length;
        if (decompressed <= limit) return done(null, chunk);
        done(gzipBombError(path));
      },
    });
    this.stream.on('error', (error) => bounded.destroy(error));
    gunzip.on('error', (error: NodeJS.ErrnoException) =>
      bounded.destroy(error.code === 'Z_BUF_ERROR' ? truncatedGzipError(path) : unreadableGzipError(path, error.message)),
    );
    const output = this.stream.pipe(gunzip).pipe(bounded);
    return this.signal ? addAbortSignal(this.signal, output) : output;
  }
}

// The content decides, not the name: exports get renamed, and a .gz name on a plain file would otherwise fail.
export function startsWithGzipMagic(path: string): boolean {
  const descriptor = fs.openSync(path, 'r');
  try {
    const head = Buffer.alloc(2);
    const read = fs.readSync(descriptor, head, 0, 2, 0);
    return read === 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  } finally {
    fs.closeSync(descriptor);
  }
}
