import type { SourceRecord } from '../bulk-user.js';
import { uniqueKeys } from '../account-keys.js';
import { KeyDigestTable } from './key-digest-table.js';

/**
 * Two users of one export that share an old id, an email (in any letter case), a phone number or a provider
 * account cannot both be imported. The first in the export is, on every pass and in the dry run alike; each
 * later one is reported with the record number of the one that was kept. The keys seen are kept as digests
 * (key-digest-table.ts), so the memory this takes is a few bytes per key.
 */
export async function* firstRecordWins(records: AsyncIterable<SourceRecord>): AsyncGenerator<SourceRecord> {
  const winners = new KeyDigestTable();
  for await (const record of records) {
    if (!record.user) {
      yield record;
      continue;
    }
    const keys = uniqueKeys(record.user);
    let clash: string | undefined;
    let winner = 0;
    for (const key of keys) {
      winner = winners.get(key);
      if (winner !== 0) {
        clash = key;
        break;
      }
    }
    if (clash === undefined) {
      for (const key of keys) winners.set(key, record.index + 1);
      yield record;
      continue;
    }
    yield {
      index: record.index,
      key: record.key,
      collisions: [],
      problem: { kind: 'duplicate', reason: `same ${clash} as record ${winner}, which is imported instead (the first record wins)` },
    };
  }
}
