import { describe, expect, it } from 'vitest';
import type { BulkImportUser, SourceRecord } from '../../src/cli/bulk-user.js';
import { bulkImportBody } from '../../src/cli/core-client.js';
import { KeptBytes } from '../../src/cli/kept-bytes.js';
import { SentLog } from '../../src/cli/sent-log.js';

function user(i: number): BulkImportUser {
  return {
    externalUserId: `old-${i}`,
    userMetadata: { displayName: `Zoë "${i}" \u{1F600}`, note: 'line\nbreak\u2028' },
    loginMethods: [
      { recipeId: 'emailpassword', email: `user${i}@example.com`, passwordHash: `$2b$10$${'a'.repeat(53)}`, isVerified: i % 2 === 0 },
    ],
  };
}

describe('bulkImportBody', () => {
  it.each([0, 1, 63, 64, 65, 128, 129, 1_000, 3_000])('is JSON.stringify({ users }) byte for byte, %i users', (count) => {
    const users = Array.from({ length: count }, (_, i) => user(i));
    const body = bulkImportBody(users);
    expect(body.bytes.toString('utf8')).toBe(JSON.stringify({ users }));
    body.release();
  });
});

describe('KeptBytes', () => {
  it('grows past its first guess and keeps what it holds', () => {
    const bytes = new KeptBytes(1);
    const text = `${'ä'.repeat(70_000)}${'b'.repeat(100_000)}`;
    bytes.append(text);
    bytes.append('!');
    expect(bytes.bytes.toString('utf8')).toBe(`${text}!`);
  });

  it('never hands a buffer in use to another text, also when released twice', () => {
    // Held, so that the buffers other tests released are not what the next ones get.
    const held = Array.from({ length: 8 }, () => new KeptBytes(1));
    const first = new KeptBytes(10);
    first.append('a'.repeat(1_000));
    first.release();
    first.release();
    const second = new KeptBytes(10);
    const third = new KeptBytes(10);
    second.append('b'.repeat(1_000));
    third.append('c'.repeat(1_000));
    expect(second.bytes.toString()).toBe('b'.repeat(1_000));
    expect(third.bytes.toString()).toBe('c'.repeat(1_000));
    expect(held).toHaveLength(8);
  });
});

describe('SentLog.intentLines', () => {
  it('writes one line per user, record number first, across its parts', () => {
    const records: SourceRecord[] = Array.from({ length: 130 }, (_, i) => ({
      index: i * 2,
      key: `old-${i}`,
      user: user(i),
      collisions: [],
    }));
    const lines = SentLog.intentLines(records).text.bytes.toString('utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(130);
    lines.forEach((line, i) => {
      const [record, marker, json] = line.split('\t');
      expect([record, marker]).toEqual([String(i * 2 + 1), '?']);
      expect(JSON.parse(json)).toEqual({
        user: `old-${i}`,
        account: { externalUserId: `old-${i}`, loginMethods: [{ recipeId: 'emailpassword', email: `user${i}@example.com` }] },
      });
    });
  });
});
