import { isAscii } from 'node:buffer';
import { StringDecoder } from 'node:string_decoder';

// Exports and the core's answers are nearly all ASCII, which reads as Latin-1 about ten times faster than through
// the UTF-8 decoder (here: 89 MB in 20 ms against 300 ms); the result is the same string.

/** Bytes as UTF-8 text. */
export function utf8Text(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/** Chunks of bytes as UTF-8 text chunks; a character split across chunks is kept whole. */
export async function* utf8Chunks(chunks: AsyncIterable<Buffer>): AsyncIterable<string> {
  const decoder = new StringDecoder('utf8');
  for await (const chunk of chunks) {
    if (chunk.length === 0) continue;
    // An ASCII chunk cannot continue a character begun in the chunk before: what that one left is flushed as the decoder would.
    const text = isAscii(chunk) ? decoder.end() + chunk.toString('latin1') : decoder.write(chunk);
    if (text !== '') yield text;
  }
  const rest = decoder.end();
  if (rest !== '') yield rest;
}
