import { StringDecoder } from 'node:string_decoder';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8Chunks, utf8Text } from '../../src/cli/utf8-text.js';

// Bytes that exercise both paths: ASCII runs, whole and split multi-byte characters, and invalid bytes.
const piece = fc.oneof(
  fc.string({ unit: 'binary-ascii', maxLength: 8 }).map((text) => Buffer.from(text, 'latin1')),
  fc.string({ unit: 'grapheme', maxLength: 4 }).map((text) => Buffer.from(text, 'utf8')),
  fc.uint8Array({ maxLength: 3 }).map((bytes) => Buffer.from(bytes)),
);
const chunked = fc.array(
  fc.array(piece, { maxLength: 6 }).map((pieces) => Buffer.concat(pieces)),
  { maxLength: 8 },
);

async function decodeAll(chunks: Buffer[]): Promise<string> {
  let text = '';
  for await (const part of utf8Chunks(
    (async function* () {
      yield* chunks;
    })(),
  ))
    text += part;
  return text;
}

function throughDecoder(chunks: Buffer[]): string {
  const decoder = new StringDecoder('utf8');
  return chunks.map((chunk) => decoder.write(chunk)).join('') + decoder.end();
}

describe('utf8Chunks', () => {
  it('gives the text the UTF-8 decoder gives, however the bytes are split', async () => {
    await fc.assert(
      fc.asyncProperty(chunked, async (chunks) => {
        expect(await decodeAll(chunks)).toBe(throughDecoder(chunks));
      }),
      {
        numRuns: 2000,
      },
    );
  });

  it('keeps a character split across an ASCII chunk boundary whole, and flushes one cut short', async () => {
    const euro = Buffer.from('€', 'utf8');
    expect(await decodeAll([Buffer.from('a'), euro.subarray(0, 2), euro.subarray(2), Buffer.from('b')])).toBe('a€b');
    expect(await decodeAll([Buffer.from('a'), euro.subarray(0, 2), Buffer.from('b')])).toBe('a\ufffdb');
    expect(await decodeAll([euro.subarray(0, 1)])).toBe('\ufffd');
  });
});

describe('utf8Text', () => {
  it('decodes ASCII and other text alike', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(utf8Text(Buffer.from(bytes))).toBe(Buffer.from(bytes).toString('utf8'));
      }),
    );
    expect(utf8Text(Buffer.from('{"email":"zoë@example.com"}'))).toBe('{"email":"zoë@example.com"}');
  });
});
