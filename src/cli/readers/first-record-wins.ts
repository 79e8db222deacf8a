import type { SourceRecord } from '../bulk-user.js';
import { uniqueKeys } from '../account-keys.js';

/**
 * Two users of one export that share an old id, an email (in any letter case), a phone number or a provider
 * account cannot both be imported. The first in the export is, on every pass and in the dry run alike; each
 * later one is reported with the record number of the one that was kept.
 */
export async function* firstRecordWins(records: AsyncIterable<SourceRecord>): AsyncGenerator<SourceRecord> {
  const winners = new Map<string, number>();
  for await (const record of records) {
    if (!record.user) {
      yield record;
      continue;
    }
    const keys = uniqueKeys(record.user);
    const clash = keys.find((key) => winners.has(key));
    if (clash === undefined) {
      for (const key of keys) winners.set(key, record.index + 1);
      yield record;
      continue;
    }
    const winner = winners.get(clash)!;
    yield {
      index: record.index,
      key: record.key,
      collisions: [],
      problem: { kind: 'duplicate', reason: `same ${clash} as record ${winner}, which is imported instead (the first record wins)` },
    };
  }
}
