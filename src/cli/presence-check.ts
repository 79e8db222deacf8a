import { addLookupKeys, CoreIndex, emptyLookup, presenceOf, type Presence } from './account-keys.js';
import type { SourceRecord } from './bulk-user.js';
import type { CoreClient } from './core-client.js';

/** What the core holds for each user of a batch (at most one request's worth), in one lookup. */
export async function checkPresence(client: CoreClient, records: readonly SourceRecord[]): Promise<Presence[]> {
  if (records.length === 0) return [];
  const body = emptyLookup();
  for (const record of records) addLookupKeys(body, record.user!);
  const found = await client.lookupWithMaterial(body);
  const core = new CoreIndex(found.users, found.material);
  return records.map((record) => presenceOf(record.user!, core));
}
