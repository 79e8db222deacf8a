// The command's large texts (a batch's request body, its intent lines) are written as UTF-8 into buffers kept from
// one batch to the next, a part at a time. Made whole, each was a text of megabytes and then a new buffer of its bytes:
// the process filled fresh memory for both, a page fault per 4 KiB, about 12 µs each on a small virtual machine
// (at 200,000 users some 40,000 faults, half a second of CPU).

// Enough for the batches in flight (three) and their intent lines. Smallest first: a text takes the smallest that
// fits, and the smallest goes when there are too many, so the first batches' small buffers do not crowd out the
// large ones.
const MAX_SPARE_BUFFERS = 4;
const spareBuffers: Buffer[] = [];

/** UTF-8 text in a buffer that serves another text once `release` is called. */
export class KeptBytes {
  private buffer: Buffer;
  private used = 0;
  private released = false;

  /** expectedBytes: a guess; the buffer grows past it when needed. */
  constructor(expectedBytes: number) {
    const spare = spareBuffers.findIndex((buffer) => buffer.length >= expectedBytes);
    this.buffer = spare === -1 ? Buffer.allocUnsafeSlow(powerOfTwoFrom(expectedBytes)) : spareBuffers.splice(spare, 1)[0];
  }

  get length(): number {
    return this.used;
  }

  /** The bytes written so far; valid until release. */
  get bytes(): Buffer {
    return this.buffer.subarray(0, this.used);
  }

  append(text: string): void {
    // A UTF-16 code unit is at most three bytes of UTF-8.
    this.makeRoom(text.length * 3);
    this.used += this.buffer.write(text, this.used, 'utf8');
  }

  /** Overwrites the byte at `position` (written already). */
  setByte(position: number, byte: number): void {
    this.buffer[position] = byte;
  }

  /** Forgets the last `count` bytes written. */
  truncate(count: number): void {
    this.used -= count;
  }

  /** Called once nothing reads the bytes any more (a request's every attempt is over, a file write is done). */
  release(): void {
    if (this.released) return;
    this.released = true;
    spareBuffers.push(this.buffer);
    spareBuffers.sort((a, b) => a.length - b.length);
    if (spareBuffers.length > MAX_SPARE_BUFFERS) spareBuffers.shift();
  }

  private makeRoom(bytes: number): void {
    if (this.used + bytes <= this.buffer.length) return;
    const larger = Buffer.allocUnsafeSlow(powerOfTwoFrom(this.used + bytes));
    this.buffer.copy(larger, 0, 0, this.used);
    this.buffer = larger;
  }
}

function powerOfTwoFrom(bytes: number): number {
  let size = 64 * 1024;
  while (size < bytes) size *= 2;
  return size;
}
