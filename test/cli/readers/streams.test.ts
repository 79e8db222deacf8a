import { describe, expect, it } from 'vitest';
import { streamJsonArray, UnreadableElement } from '../../../src/cli/readers/json-array-stream.js';
import { CsvProblem, streamCsvRecords } from '../../../src/cli/readers/csv-records.js';
import { chunksOf, collect } from '../fixtures.js';

describe('streamJsonArray', () => {
  const users = [
    { localId: 'a', displayName: 'brackets ] } [ { and "quotes" and \\ backslash', nested: { users: [{ no: 1 }] } },
    { localId: 'b', displayName: 'Zoë 🚀 \u2028', providerUserInfo: [{ providerId: 'google.com', rawId: '1' }] },
  ];
  const document = `{"kind": "export", "users\\u0020": [{"x": 1}], "meta": {"users": [1]}, "users": ${JSON.stringify(users, null, 2)}, "after": ["x"]}`;

  it('yields the elements of the top-level "users" array only', async () => {
    expect(await collect(streamJsonArray(chunksOf(document), 'users'))).toEqual(users);
  });

  it('gives the same result wherever the chunks are cut', async () => {
    for (let cut = 1; cut < document.length; cut += 3) {
      const result = await collect(streamJsonArray(chunksOf(document, cut, Math.min(document.length, cut + 7)), 'users'));
      expect(result, `cut at ${cut}`).toEqual(users);
    }
  });

  it('keeps escapes whole wherever they are cut: backslashes before a quote, at a chunk end, in keys', async () => {
    const tricky = [{ a: 'ends in a backslash \\', b: '\\"quoted\\"\\', 'key \\ "x"': '"', c: '' }, { d: '\\\\' }];
    const text = JSON.stringify({ users: tricky });
    for (let cut = 1; cut < text.length; cut++) {
      for (const width of [1, 2, 3]) {
        const cuts = [cut, Math.min(text.length, cut + width)];
        expect(await collect(streamJsonArray(chunksOf(text, ...cuts), 'users')), `cut at ${cut}+${width}`).toEqual(tricky);
      }
    }
  });

  describe('elements on lines of their own: pretty-printed as auth:export writes them, or one per line', () => {
    const lineUsers = [
      ...users,
      { localId: 'c', customAttributes: '{"role":"admin","tags":["a]","b},{"]}' },
      { localId: 'd', providerUserInfo: [{ providerId: 'password' }, { providerId: 'phone', phoneNumber: '+15550100' }] },
    ];
    const lines = (separator: string) =>
      `{"users": [${separator}${lineUsers.map((user) => JSON.stringify(user)).join(`,${separator}`)}${separator}]}`;
    const pretty = (indent: number, eol: string) =>
      `{"users": [${eol}${lineUsers
        .map((user) =>
          JSON.stringify(user, null, 2)
            .split('\n')
            .map((line) => ' '.repeat(indent) + line)
            .join(eol),
        )
        .join(`,${eol}`)}]}`;

    it.each([
      ['as auth:export writes them', 0, '\n'],
      ['indented, with CRLF', 4, '\r\n'],
    ])('reads pretty-printed ones %s the same wherever the chunks are cut', async (_name, indent, eol) => {
      const text = pretty(indent, eol);
      for (let cut = 1; cut < text.length; cut += 2) {
        const result = await collect(streamJsonArray(chunksOf(text, cut, Math.min(text.length, cut + 5)), 'users'));
        expect(result, `cut at ${cut}`).toEqual(lineUsers);
      }
    });

    it.each([
      ['\n', '\n'],
      ['\r\n', '\r\n'],
      ['blanks around the commas', ' \t\n  '],
    ])('reads them the same wherever the chunks are cut (%s)', async (_name, separator) => {
      const text = lines(separator);
      for (let cut = 1; cut < text.length; cut += 2) {
        const result = await collect(streamJsonArray(chunksOf(text, cut, Math.min(text.length, cut + 5)), 'users'));
        expect(result, `cut at ${cut}`).toEqual(lineUsers);
      }
    });

    it('reads a line holding two elements, a pretty-printed one and one followed by the end of the array the same way', async () => {
      const [a, b, , d] = lineUsers.map((user) => JSON.stringify(user));
      const text = `{"users": [\n${a}, ${b},\n${JSON.stringify(lineUsers[2], null, 2)},\n${d}]}`;
      expect(await collect(streamJsonArray(chunksOf(text), 'users'))).toEqual(lineUsers);
    });

    it('still refuses an element on its own line that nests deeper than the limit', async () => {
      const deep = '{"a":'.repeat(70) + '1' + '}'.repeat(70);
      const text = `{"users": [\n{"localId":"x"},\n${deep}\n]}`;
      await expect(collect(streamJsonArray(chunksOf(text), 'users'))).rejects.toThrow('the JSON nests deeper than 64 levels');
    });

    it('still reports an element on its own line longer than the limit as unreadable, and reads the next', async () => {
      const text = `{"users": [\n{"localId":"${'x'.repeat(200)}"},\n{"localId":"y"}\n]}`;
      const result = await collect(streamJsonArray(chunksOf(text), 'users', 100));
      expect(result[0]).toBeInstanceOf(UnreadableElement);
      expect(result[1]).toEqual({ localId: 'y' });
    });
  });

  it('accepts a top-level array', async () => {
    expect(await collect(streamJsonArray(chunksOf(` ${JSON.stringify(users)} `, 5), 'users'))).toEqual(users);
  });

  it.each([
    ['no users key', '{"accounts": []}', 'no "users" array found'],
    ['truncated', '{"users": [{"a": "b', 'the file ends in the middle of a JSON value'],
    ['not an object', '"users"', 'expected a JSON object or array'],
    ['empty', '', 'no "users" array found'],
  ])('rejects %s', async (_name, text, message) => {
    await expect(collect(streamJsonArray(chunksOf(text), 'users'))).rejects.toThrow(message);
  });
});

describe('streamCsvRecords', () => {
  const text = 'a,"b,1","say ""hi""",\r\n"multi\nline",x"y,\n\n"",last\r\nno newline at end';

  it('splits fields and records the RFC 4180 way, keeping stray quotes in unquoted fields', async () => {
    const expected = [['a', 'b,1', 'say "hi"', ''], ['multi\nline', 'x"y', ''], ['', 'last'], ['no newline at end']];
    expect(await collect(streamCsvRecords(chunksOf(text)))).toEqual(expected);
    for (let cut = 1; cut < text.length; cut++) {
      expect(await collect(streamCsvRecords(chunksOf(text, cut))), `cut at ${cut}`).toEqual(expected);
    }
  });

  it('refuses the row of a quote never closed, then reads the rows after its first line again', async () => {
    expect(await collect(streamCsvRecords(chunksOf('a,"open\n')))).toEqual([new CsvProblem('a quoted field is never closed')]);
    expect(await collect(streamCsvRecords(chunksOf('x,y\na,"open\nb,c\n"d\ne,f\n', 12)))).toEqual([
      ['x', 'y'],
      new CsvProblem('a quoted field is never closed'),
      ['b', 'c'],
      new CsvProblem('a quoted field is never closed'),
      ['e', 'f'],
    ]);
  });

  it('refuses a row longer than the record limit and reads the next one', async () => {
    const long = 'z'.repeat(50);
    expect(await collect(streamCsvRecords(chunksOf(`a,b\n${long}\n"${long}\nc,d\n`), 20))).toEqual([
      ['a', 'b'],
      new CsvProblem('is longer than 20 characters: not read'),
      new CsvProblem('a quoted field is longer than 20 characters or never closed'),
      ['c', 'd'],
    ]);
  });
});
