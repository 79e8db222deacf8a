import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CreatedLog } from '../../src/cli/created-log.js';
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
    const table = new KeyDigestTable();
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

  it('CreatedLog gives back what was added, in order and in chunks, across its write buffer', () => {
    const log = new CreatedLog(temp.file('created.ndjson', ''));
    log.clear();
    const users = Array.from({ length: 2_500 }, (_, i) => ({ user: `zoë-${i}@example.com`, record: i + 1, userId: `id-${i}` }));
    for (const user of users) log.add(user);
    const chunks = [...log.chunks(1_000)];
    expect(chunks.map((chunk) => chunk.length)).toEqual([1_000, 1_000, 500]);
    expect(chunks.flat()).toEqual(users);
    log.clear();
    expect(fs.existsSync(log.path)).toBe(false);
    expect([...log.chunks()]).toEqual([]);
  });
});
