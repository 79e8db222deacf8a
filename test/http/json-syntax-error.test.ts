import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findJsonSyntaxError } from '../../src/http/json-syntax-error.js';

// The scanner is checked against the engine's own parser: it must find an error exactly when JSON.parse throws.
function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

describe('findJsonSyntaxError', () => {
  it.each([
    ['cut short', '{"email": ', { offset: 10, problem: 'unexpected end of input' }],
    ['trailing comma in an object', '{"a":1,}', { offset: 7, problem: 'expected a property name in double quotes' }],
    ['unquoted key', '{a:1}', { offset: 1, problem: 'expected a property name in double quotes' }],
    ['single quotes', "{'a':1}", { offset: 1, problem: 'expected a property name in double quotes' }],
    ['missing colon', '{"a" 1}', { offset: 5, problem: "expected ':'" }],
    ['leading zero', '{"a":01}', { offset: 6, problem: 'invalid number' }],
    ['bare minus', '{"a":-}', { offset: 6, problem: 'invalid number' }],
    ['bad escape', '{"a":"x\\q"}', { offset: 7, problem: 'invalid escape sequence' }],
    ['raw newline in a string', '{"a":"x\ny"}', { offset: 7, problem: 'control character inside a string' }],
    ['data after the end', '{"a":1}}', { offset: 7, problem: 'unexpected data after the end' }],
    ['trailing comma in an array', '{"a":[1,]}', { offset: 8, problem: 'unexpected character' }],
    ['wrong closing bracket', '{"a":[1}', { offset: 7, problem: "expected ',' or ']'" }],
    ['form encoding', 'email=a@b.c', { offset: 0, problem: 'unexpected character' }],
    ['byte-order mark', '\uFEFF{}', { offset: 0, problem: 'unexpected character' }],
  ])('%s', (_name, text, expected) => {
    expect(parses(text)).toBe(false);
    expect(findJsonSyntaxError(text)).toEqual(expected);
  });

  it('finds nothing in valid JSON, however deep', () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    expect(findJsonSyntaxError(deep)).toBeUndefined();
    expect(findJsonSyntaxError('{"a":1e5,"b":[true,false,null,{"c":"\\u00e9\\n"}],"d":-0.5E-3}')).toBeUndefined();
  });

  it('agrees with JSON.parse on valid JSON and on every cut or one-character change of it', () => {
    fc.assert(
      fc.property(
        fc.json(),
        fc.nat(),
        fc.constantFrom('', '"', '\\', ',', ']', '}', ':', '0', '-', '.', 'e', ' ', 'x'),
        (json, at, insert) => {
          const position = json.length === 0 ? 0 : at % json.length;
          for (const text of [json, json.slice(0, position), json.slice(0, position) + insert + json.slice(position + 1)]) {
            expect(findJsonSyntaxError(text) === undefined, text).toBe(parses(text));
          }
        },
      ),
      { numRuns: 2000, seed: 15 },
    );
  });
});
