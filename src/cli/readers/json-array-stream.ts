import { describeLimit, MAX_RECORD_CHARS } from './record-limits.js';

// Yields the objects of one array in a JSON document without holding the document in memory: the
// array is the value of `key` in the top-level object, or the top-level value itself. Only one
// element is buffered at a time, so a 1 GB export needs about as much memory as its largest user.

const QUOTE = 0x22;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

export class JsonStreamError extends Error {}

/** An element of the array that is not an object, or one too large to read: reported as one invalid record. */
export class UnreadableElement {
  constructor(readonly reason: string) {}
}

// Deeper nesting is refused (JSON.parse would overflow its stack on a hostile document); exports nest a few levels.
const MAX_DEPTH = 64;

export async function* streamJsonArray(
  chunks: AsyncIterable<string>,
  key: string,
  maxElementChars = MAX_RECORD_CHARS,
): AsyncGenerator<unknown> {
  let depth = 0;
  let inString = false;
  let escaped = false;
  // Depth at which the wanted array's elements sit; 0 until the array is found.
  let arrayDepth = 0;
  let arrayDone = false;
  let expectKey = false;
  let keyText: string | undefined;
  let lastKey: string | undefined;
  let element: string[] | undefined;
  let elementChars = 0;
  // The element being read is too large: its text is dropped, its end still found.
  let skipping = false;
  // At the start of the array or after a comma in it: the next value is an element.
  let expectElement = false;
  let sawContent = false;
  let fastPathFailures = 0;

  for await (const chunk of chunks) {
    let elementStart = element ? 0 : -1;
    // Where the next backslash is at or after the position searched last (chunk.length when none is left).
    let backslash = -1;
    for (let i = 0; i < chunk.length; i++) {
      if (inString) {
        // Jumps to the closing quote with indexOf instead of looking at each character: most of an export is
        // string content (hashes, emails, names), and escapes are rare.
        let from = i;
        if (escaped) {
          escaped = false;
          from = i + 1;
        }
        let close = -1;
        while (from < chunk.length) {
          if (backslash < from) backslash = indexOrEnd(chunk, '\\', from);
          const quote = indexOrEnd(chunk, '"', from);
          if (backslash < quote) {
            // The escaped character may be the first of the next chunk.
            escaped = backslash === chunk.length - 1;
            from = backslash + 2;
            continue;
          }
          if (quote < chunk.length) close = quote;
          break;
        }
        if (keyText !== undefined) keyText += chunk.slice(i, close === -1 ? chunk.length : close);
        if (close === -1) {
          i = chunk.length;
          continue;
        }
        i = close;
        inString = false;
        if (keyText !== undefined) {
          lastKey = JSON.parse(`"${keyText}"`) as string;
          keyText = undefined;
          expectKey = false;
        }
        continue;
      }
      const code = chunk.charCodeAt(i);
      if (code <= 0x20) continue;
      if (!sawContent) {
        sawContent = true;
        if (code === OPEN_ARRAY) arrayDepth = 1;
        else if (code !== OPEN_OBJECT) throw new JsonStreamError('expected a JSON object or array');
      }
      if (expectElement && depth === arrayDepth && code !== CLOSE_ARRAY) {
        expectElement = false;
        if (code !== OPEN_OBJECT) yield new UnreadableElement(`is not an object (${describeValue(code)})`);
      }
      if (code === QUOTE) {
        inString = true;
        if (depth === 1 && expectKey && arrayDepth === 0) keyText = '';
        continue;
      }
      if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
        if (depth === 0 && code === OPEN_OBJECT) expectKey = true;
        if (depth === 1 && code === OPEN_ARRAY && lastKey === key && arrayDepth === 0 && !arrayDone) arrayDepth = 2;
        else if (arrayDepth !== 0 && depth === arrayDepth && code === OPEN_OBJECT) {
          const onItsLine = fastPathFailures < MAX_FAST_PATH_FAILURES ? elementOnItsLines(chunk, i, maxElementChars) : undefined;
          if (onItsLine === FAILED) fastPathFailures++;
          else if (onItsLine !== undefined) {
            i = onItsLine.end;
            yield onItsLine.value;
            continue;
          }
          element = [];
          elementChars = 0;
          elementStart = i;
        }
        depth++;
        if (depth > MAX_DEPTH) throw new JsonStreamError(`the JSON nests deeper than ${MAX_DEPTH} levels`);
        if (arrayDepth !== 0 && depth === arrayDepth && code === OPEN_ARRAY) expectElement = true;
        continue;
      }
      if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
        depth--;
        if (depth < 0) throw new JsonStreamError('unbalanced brackets');
        if (element && depth === arrayDepth) {
          element.push(chunk.slice(elementStart, i + 1));
          elementChars += i + 1 - elementStart;
          const text = element.join('');
          element = undefined;
          elementStart = -1;
          if (skipping || elementChars > maxElementChars) {
            skipping = false;
            yield new UnreadableElement(`is longer than ${describeLimit(maxElementChars)} (${elementChars} characters): not read`);
          } else yield JSON.parse(text) as unknown;
        } else if (arrayDepth !== 0 && depth === arrayDepth - 1 && code === CLOSE_ARRAY) {
          arrayDone = true;
          arrayDepth = 0;
        }
        continue;
      }
      if (code === COMMA && depth === 1 && arrayDepth === 0) expectKey = true;
      if (code === COMMA && arrayDepth !== 0 && depth === arrayDepth) expectElement = true;
    }
    if (element && elementStart !== -1) {
      elementChars += chunk.length - elementStart;
      // Past the limit the element's text is no longer kept; only its length is counted.
      if (elementChars > maxElementChars) {
        skipping = true;
        element.length = 0;
      } else element.push(chunk.slice(elementStart));
    }
  }
  if (inString || depth !== 0) throw new JsonStreamError('the file ends in the middle of a JSON value');
  if (!arrayDone) throw new JsonStreamError(`no "${key}" array found`);
}

// Exports lay their users out one of two ways: Firebase's auth:export writes each as JSON.stringify(user, null, 2),
// its closing brace alone at the start of a line; others put each on a line of its own. Such an element is found with
// one search and parsed at once, without the scanner looking at each character outside its strings. Valid JSON has no
// line feed inside a string, and a text that starts at an element's "{" and parses as one object ends at that
// element's "}": anything else (several elements on a line, another indentation, a broken element, one nesting past
// the limit or longer than the record limit) is read character by character, and after a few misses the stream
// stops trying.
const MAX_FAST_PATH_FAILURES = 8;
const FAILED = Symbol('not laid out on lines of its own');
const LINE_FEED = 0x0a;

function elementOnItsLines(chunk: string, start: number, maxChars: number): { value: object; end: number } | typeof FAILED | undefined {
  const end = closingBrace(chunk, start);
  if (end === undefined) return undefined;
  if (end === -1 || end + 1 - start > maxChars) return FAILED;
  const text = chunk.slice(start, end + 1);
  if (!openersWithin(text, MAX_DEPTH)) return FAILED;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? { value, end } : FAILED;
  } catch {
    return FAILED;
  }
}

// Where the element starting at `start` would end in either layout: undefined when the chunk ends first, -1 when the
// element is laid out neither way.
function closingBrace(chunk: string, start: number): number | undefined {
  const next = chunk.charCodeAt(start + 1);
  if (next === LINE_FEED || next === 0x0d) {
    // Pretty-printed: its "}" is the first one indented as its "{" at the start of a line.
    const lineStart = chunk.lastIndexOf('\n', start) + 1;
    const indent = chunk.slice(lineStart, start);
    // A line begun in the chunk before: its indentation is not known here.
    if (lineStart === 0) return undefined;
    if (indent.trim() !== '') return -1;
    const close = chunk.indexOf(`\n${indent}}`, start);
    return close === -1 ? undefined : close + 1 + indent.length;
  }
  const lineEnd = chunk.indexOf('\n', start);
  if (lineEnd === -1) return undefined;
  let end = lineEnd - 1;
  while (end > start && chunk.charCodeAt(end) <= 0x20) end--;
  if (chunk.charCodeAt(end) === COMMA) end--;
  while (end > start && chunk.charCodeAt(end) <= 0x20) end--;
  return chunk.charCodeAt(end) === CLOSE_OBJECT ? end : -1;
}

// At most `max` "{" and "[" in all, so the element cannot nest deeper than the limit.
function openersWithin(text: string, max: number): boolean {
  let count = 0;
  for (let at = text.indexOf('{'); at !== -1 && count <= max; at = text.indexOf('{', at + 1)) count++;
  for (let at = text.indexOf('['); at !== -1 && count <= max; at = text.indexOf('[', at + 1)) count++;
  return count <= max;
}

function describeValue(code: number): string {
  if (code === OPEN_ARRAY) return 'an array';
  if (code === QUOTE) return 'a string';
  if (code === 0x74 || code === 0x66) return 'a boolean';
  if (code === 0x6e) return 'null';
  return 'a number';
}

function indexOrEnd(text: string, search: string, from: number): number {
  const at = text.indexOf(search, from);
  return at === -1 ? text.length : at;
}
