// The largest record (an NDJSON line, a CSV row) the command reads, in UTF-16 code units. Real exports' users are a
// few kilobytes (Auth0's app_metadata and Firebase's custom claims are capped far below this); anything larger is
// refused as one invalid record instead of being held in memory (a 1 GiB line would otherwise crash the command).
export const MAX_RECORD_CHARS = 4 * 1024 * 1024;

/** "4 MiB", or the number of characters for a limit that is not a whole number of MiB (tests use small ones). */
export function describeLimit(maxChars: number): string {
  return maxChars % (1024 * 1024) === 0 ? `${maxChars / (1024 * 1024)} MiB` : `${maxChars} characters`;
}

/** A line longer than MAX_RECORD_CHARS: its text was dropped as it was read. */
export class OverlongLine {
  constructor(readonly chars: number) {}

  get reason(): string {
    return `is longer than ${describeLimit(MAX_RECORD_CHARS)} (${this.chars} characters): not read`;
  }
}

/** Lines of the text, each at most `max` characters; a longer one is an OverlongLine. Line ends: \n, \r\n. */
export async function* boundedLines(chunks: AsyncIterable<string>, max = MAX_RECORD_CHARS): AsyncGenerator<string | OverlongLine> {
  let parts: string[] = [];
  let length = 0;
  let overlong = false;
  const finish = (tail: string): string | OverlongLine => {
    const chars = length + tail.length;
    const line = overlong || chars > max ? new OverlongLine(chars) : parts.join('') + tail;
    parts = [];
    length = 0;
    overlong = false;
    return typeof line === 'string' && line.endsWith('\r') ? line.slice(0, -1) : line;
  };
  for await (const chunk of chunks) {
    let start = 0;
    for (let end = chunk.indexOf('\n'); end !== -1; end = chunk.indexOf('\n', start)) {
      yield finish(chunk.slice(start, end));
      start = end + 1;
    }
    const rest = chunk.length - start;
    if (rest === 0) continue;
    length += rest;
    if (overlong || length > max) overlong = true;
    else parts.push(chunk.slice(start));
    if (overlong) parts = [];
  }
  if (length > 0) yield finish('');
}
