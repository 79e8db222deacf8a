import type { SourceRecord } from '../bulk-user.js';
import { uniqueKeys } from '../account-keys.js';
import { KeyDigestTable } from './key-digest-table.js';
import { dropFactorPhone } from './carry.js';

function firstClash(keys: string[], winners: KeyDigestTable): { clash?: string; winner: number } {
  const { position, record } = winners.firstHeld(keys);
  return position === -1 ? { winner: 0 } : { clash: keys[position], winner: record };
}

/**
 * Two users of one export that share an old id, an email (in any letter case), a phone number or a provider
 * account cannot both be imported. The first in the export is, on every pass and in the dry run alike; each
 * later one is reported with the record number of the one that was kept. The keys seen are kept as digests
 * (key-digest-table.ts), so the memory this takes is a few bytes per key.
 */
export async function* firstRecordWins(records: AsyncIterable<SourceRecord>): AsyncGenerator<SourceRecord> {
  const winners = new KeyDigestTable();
  for await (let record of records) {
    if (!record.user) {
      yield record;
      continue;
    }
    let keys = uniqueKeys(record.user);
    let { clash, winner } = firstClash(keys, winners);
    // A number the user only proves as a second factor is dropped instead of the user (carry.ts).
    while (clash !== undefined && record.user !== undefined && record.factorPhones !== undefined) {
      const phone = record.factorPhones.phones.find(
        (number) => clash === `phone number ${number}` || clash === `linked phone number ${number}`,
      );
      if (phone === undefined) break;
      record = dropFactorPhone(record, phone, `record ${winner} signs in with or proves the same number`);
      keys = uniqueKeys(record.user!);
      ({ clash, winner } = firstClash(keys, winners));
    }
    if (clash === undefined) {
      winners.claim(record.index + 1);
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
