import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CreatedLog } from '../../src/cli/created-log.js';
import { buildReport, writeReport } from '../../src/cli/report.js';
import { ReportReader } from '../../src/cli/report-reader.js';
import { Results } from '../../src/cli/results.js';
import { KeyDigestTable } from '../../src/cli/readers/key-digest-table.js';
import { SentLog } from '../../src/cli/sent-log.js';
import { makeTempDir } from './fixtures.js';

// What the migration command keeps for a whole run outside its heap, or compactly in it.
describe('the run state kept out of memory', () => {
  let temp: ReturnType<typeof makeTempDir>;
  beforeEach(() => {
    temp = makeTempDir();
  });
  afterEach(() => temp.remove());

  it('KeyDigestTable answers the record stored with each key, and 0 for keys never stored, across growth', () => {
    // Digests from the second key on.
    const table = new KeyDigestTable(1);
    const count = 50_000;
    for (let i = 0; i < count; i++) {
      expect(table.get(`email user${i}@example.com`)).toBe(0);
      table.set(`email user${i}@example.com`, i + 1);
    }
    for (let i = 0; i < count; i++) expect(table.get(`email user${i}@example.com`)).toBe(i + 1);
    for (let i = 0; i < count; i++) expect(table.get(`email user${i}@example.org`)).toBe(0);
    expect(table.get('old id user1@example.com')).toBe(0);
    expect(table.get('')).toBe(0);
  });

  it.each([
    ['as strings', undefined],
    ['as digests', 1],
    ['as strings, then digests', 5_000],
  ])('KeyDigestTable.firstHeld names the first key held, and claim stores the keys of a user that holds none (%s)', (_, mapKeys) => {
    const table = new KeyDigestTable(mapKeys);
    expect(table.firstHeld(['old id a', 'email a@example.com'])).toEqual({ position: -1, record: 0 });
    table.claim(1);
    expect(table.get('old id a')).toBe(1);
    expect(table.get('email a@example.com')).toBe(1);
    expect(table.firstHeld(['old id b', 'email a@example.com'])).toEqual({ position: 1, record: 1 });
    // A user that clashed claims nothing.
    table.claim(2);
    expect(table.get('old id b')).toBe(0);
    for (let i = 0; i < 10_000; i++) {
      expect(table.firstHeld([`old id ${i}`, `email user${i}@example.com`, `phone number +1${i}`]).position).toBe(-1);
      table.claim(i + 10);
    }
    for (let i = 0; i < 10_000; i++) expect(table.get(`phone number +1${i}`)).toBe(i + 10);
    // Keys stored before a switch to digests are still found after it.
    expect(table.firstHeld(['old id z', 'email a@example.com'])).toEqual({ position: 1, record: 1 });
  });

  it('SentLog is read forwards in step with the export, without the lines appended after it was opened', () => {
    const log = new SentLog(temp.file('users.ndjson.migrate-sent.tsv', ''));
    log.append([
      { record: 1, userId: 'a' },
      { record: 3, userId: 'c' },
    ]);
    log.append([
      { record: 3, userId: 'c2' },
      { record: 4, userId: 'd' },
    ]);
    const reader = log.reader();
    log.append([{ record: 5, userId: 'e' }]);
    expect([1, 2, 3, 4, 5].map((record) => reader.idsFor(record))).toEqual([['a'], [], ['c', 'c2'], ['d'], []]);
    reader.close();
  });

  it('SentLog read out of order (a log edited by hand) still gives every id of a record', () => {
    const path = temp.file('sent.tsv', '3\tc\n1\ta\n3\tc2\n');
    const reader = new SentLog(path).reader();
    expect([1, 2, 3].map((record) => reader.idsFor(record))).toEqual([['a'], [], ['c', 'c2']]);
    reader.close();
  });

  it('CreatedLog gives back what was added, in order, in chunks of whole lines, across its write and read buffers', () => {
    const log = new CreatedLog(temp.file('created.ndjson', ''));
    log.clear();
    // About 3 MB: three reads, with lines split across them.
    const users = Array.from({ length: 40_000 }, (_, i) => ({ user: `zoë-${i}@example.com`, record: i + 1, userId: `id-${i}` }));
    for (const user of users) log.add(user);
    // Each chunk is read into again for the next: copied as it comes.
    const chunks = [
      ...(function* () {
        for (const chunk of log.lineChunks()) yield Buffer.from(chunk);
      })(),
    ];
    expect(chunks.length).toBe(3);
    for (const chunk of chunks) expect(chunk.at(-1)).toBe(0x0a);
    const lines = Buffer.concat(chunks).toString('utf8').split('\n').slice(0, -1);
    expect(lines.map((line) => JSON.parse(line))).toEqual(users);
    log.clear();
    expect(fs.existsSync(log.path)).toBe(false);
    expect([...log.lineChunks()]).toEqual([]);
  });

  it('ReportReader streams the created list of a report, as written now and as written whole before', async () => {
    const users = Array.from({ length: 5 }, (_, i) => ({ user: `u-${i}`, record: i + 1, userId: `id-${i}` }));
    const results = new Results();
    results.notImported.push({ user: 'x', record: 9, stage: 'lost', reason: 'a "created": [ inside a reason' });
    const context = {
      source: 'ndjson',
      file: 'users.ndjson',
      coreUrl: 'http://127.0.0.1:3567',
      coreId: 'core-1',
      dryRun: false,
      partial: false,
      startedAt: new Date(0),
      finishedAt: new Date(0),
    };
    const report = buildReport(results, context);
    const streamed = temp.file('now.json', '');
    const asLines = (part: typeof users) => Buffer.from(part.map((user) => `${JSON.stringify(user)}\n`).join(''));
    // A chunk's last line may come without its line feed.
    const lastWithoutFeed = asLines(users.slice(2)).subarray(0, -1);
    writeReport(streamed, report, [asLines(users.slice(0, 2)), Buffer.alloc(0), lastWithoutFeed]);
    // One user a line, indented as the rest of the report.
    const head = JSON.stringify({ ...report, created: [] }, null, 2);
    const lines = users.map((user) => JSON.stringify(user)).join(',\n    ');
    expect(fs.readFileSync(streamed, 'utf8')).toBe(`${head.slice(0, head.lastIndexOf('[]'))}[\n    ${lines}\n  ]\n}\n`);
    const whole = temp.file('before.json', `${JSON.stringify({ ...report, created: users }, null, 2)}\n`);
    for (const path of [streamed, whole]) {
      expect(JSON.parse(fs.readFileSync(path, 'utf8')).created).toEqual(users);
      const reader = new ReportReader(path);
      expect(reader.coreId).toBe('core-1');
      const chunks: unknown[][] = [];
      for await (const chunk of reader.created(2)) chunks.push(chunk);
      expect(chunks).toEqual([users.slice(0, 2), users.slice(2, 4), users.slice(4)]);
    }
    const empty = temp.file('empty.json', '');
    writeReport(empty, report, []);
    expect(JSON.parse(fs.readFileSync(empty, 'utf8')).created).toEqual([]);
    expect(new ReportReader(empty).coreId).toBe('core-1');
  });

  it('ReportReader refuses what is not the report of a real run, naming the file', async () => {
    const notJson = temp.file('a.json', 'not json');
    expect(() => new ReportReader(notJson)).toThrow(`${notJson} is not a report written by identity-core migrate`);
    const dry = temp.file('b.json', JSON.stringify({ coreId: 'c', dryRun: true, created: [] }));
    expect(() => new ReportReader(dry)).toThrow(`${dry} is the report of a dry run, which created no users`);
    const none = temp.file('c.json', JSON.stringify({ coreId: 'c', dryRun: false }));
    expect(() => new ReportReader(none)).toThrow(`${none} is not a report written by identity-core migrate (this version)`);
    const noId = temp.file(
      'd.json',
      JSON.stringify({ coreId: 'c', created: [{ user: 'u', record: 1, userId: 'x' }, { user: 'v' }] }, null, 2),
    );
    await expect(new ReportReader(noId).check()).rejects.toThrow('it lists no created users');
  });
});
