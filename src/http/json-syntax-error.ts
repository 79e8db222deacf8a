import { coreError, type CoreError } from '../errors.js';

// Where strict JSON parsing stops, found by a scan of our own: the engine's SyntaxError text varies between Node
// versions and quotes pieces of the body, which may hold a password. Iterative, so deep nesting cannot overflow.

export interface JsonSyntaxError {
  offset: number;
  problem: string;
}

type Expect = 'value' | 'firstValue' | 'key' | 'firstKey' | 'colon' | 'after';

const isWhitespace = (code: number) => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
const isDigit = (code: number) => code >= 0x30 && code <= 0x39;
const literals = ['true', 'false', 'null'];
const escapes = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const numberPattern = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

type Step = number | JsonSyntaxError;

function scanString(text: string, start: number): Step {
  for (let i = start + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) return i + 1;
    if (code < 0x20) return { offset: i, problem: 'control character inside a string' };
    if (code !== 0x5c) continue;
    const escaped = text[i + 1];
    if (escaped === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) i += 5;
    else if (escaped !== undefined && escapes.has(escaped)) i += 1;
    else return { offset: i, problem: 'invalid escape sequence' };
  }
  return { offset: text.length, problem: 'unexpected end of input inside a string' };
}

function scanScalar(text: string, i: number): Step {
  const code = text.charCodeAt(i);
  if (code === 0x22) return scanString(text, i);
  if (code === 0x2d || isDigit(code)) {
    numberPattern.lastIndex = i;
    const match = numberPattern.exec(text);
    const end = match ? i + match[0].length : i;
    const next = text.charCodeAt(end);
    // "01", "1.", "1e", "-": the number pattern stops short of a character that continues the number.
    if (!match || isDigit(next) || next === 0x2e || next === 0x65 || next === 0x45)
      return { offset: match ? end : i + 1, problem: 'invalid number' };
    return end;
  }
  const literal = literals.find((word) => text.startsWith(word, i));
  return literal ? i + literal.length : { offset: i, problem: 'unexpected character' };
}

export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const open: string[] = [];
  let expect: Expect = 'value';
  let i = 0;
  for (;;) {
    while (i < text.length && isWhitespace(text.charCodeAt(i))) i++;
    if (i >= text.length) return expect === 'after' && open.length === 0 ? undefined : { offset: i, problem: 'unexpected end of input' };
    const char = text[i];
    if (expect === 'firstValue' && char === ']') {
      open.pop();
      [i, expect] = [i + 1, 'after'];
    } else if (expect === 'firstKey' && char === '}') {
      open.pop();
      [i, expect] = [i + 1, 'after'];
    } else if (expect === 'value' || expect === 'firstValue') {
      if (char === '{' || char === '[') {
        open.push(char);
        [i, expect] = [i + 1, char === '{' ? 'firstKey' : 'firstValue'];
        continue;
      }
      const step = scanScalar(text, i);
      if (typeof step !== 'number') return step;
      [i, expect] = [step, 'after'];
    } else if (expect === 'key' || expect === 'firstKey') {
      if (char !== '"') return { offset: i, problem: 'expected a property name in double quotes' };
      const step = scanString(text, i);
      if (typeof step !== 'number') return step;
      [i, expect] = [step, 'colon'];
    } else if (expect === 'colon') {
      if (char !== ':') return { offset: i, problem: "expected ':'" };
      [i, expect] = [i + 1, 'value'];
    } else {
      const container = open.at(-1);
      if (container === undefined) return { offset: i, problem: 'unexpected data after the end' };
      if (char === ',') [i, expect] = [i + 1, container === '{' ? 'key' : 'value'];
      else if (char === (container === '{' ? '}' : ']')) {
        open.pop();
        i += 1;
      } else return { offset: i, problem: `expected ',' or '${container === '{' ? '}' : ']'}'` };
    }
  }
}

/** The 400 for a body that does not parse: where parsing stopped, never what the body holds. */
export function invalidJsonError(body: string): CoreError {
  const error = body.trim() === '' ? undefined : findJsonSyntaxError(body);
  if (!error) return coreError('INVALID_JSON');
  const before = body.slice(0, error.offset);
  const line = before.split('\n').length;
  const column = error.offset - before.lastIndexOf('\n');
  return coreError('INVALID_JSON_AT', error.problem, line, column);
}
