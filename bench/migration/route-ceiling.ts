// The bulk route's own rate on the same export: the users the command would send, read from the export before the
// clock starts, sent straight to POST /bulk-import/users?importNow=true in batches of 10,000 (the command's batch
// size), one request at a time, into a new never-analyzed database of its own. No lookups, no report, no state:
// the ceiling the command's end-to-end rate is compared with.
import type { BulkImportUser } from '../../src/cli/bulk-user.js';
import { readHashConfig } from '../../src/cli/readers/hash-config.js';
import { openSource } from '../../src/cli/readers/index.js';

const BATCH = 10_000;

export async function readBatches(exportFile: string, hashConfigFile: string): Promise<BulkImportUser[][]> {
  const source = openSource('firebase', exportFile, {
    hashConfig: readHashConfig(hashConfigFile),
    includeDisabled: false,
    providerOverrides: new Map(),
  });
  const batches: BulkImportUser[][] = [[]];
  for await (const record of source.records) {
    if (!record.user) continue;
    if (batches.at(-1)!.length >= BATCH) batches.push([]);
    batches.at(-1)!.push(record.user);
  }
  return batches;
}

/** Milliseconds to import every batch through the route; throws unless the core took each. */
export async function timeBulkRoute(coreUrl: string, batches: BulkImportUser[][]): Promise<number> {
  const bodies = batches.map((users) => JSON.stringify({ users }));
  const started = performance.now();
  for (const body of bodies) {
    const response = await fetch(`${coreUrl}/bulk-import/users?importNow=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    if (response.status !== 200) throw new Error(`the bulk route answered ${response.status}: ${(await response.text()).slice(0, 500)}`);
    await response.arrayBuffer();
  }
  return performance.now() - started;
}
