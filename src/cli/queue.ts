import { delay, RouteMissingError, type CoreClient, type QueueRow } from './core-client.js';
import type { ExistingUsers } from './existing-users.js';
import type { Results } from './results.js';

export interface QueueCounts {
  /** NEW + PROCESSING: sent but not processed yet. */
  pending: number;
  failed: number;
  /** Users queued by this tool when the counts were taken; later sends are not in `pending` yet. */
  queuedBefore?: number;
}

export async function queueCounts(client: CoreClient): Promise<QueueCounts> {
  const [fresh, processing, failed] = await Promise.all([
    client.countQueue('NEW'),
    client.countQueue('PROCESSING'),
    client.countQueue('FAILED'),
  ]);
  return { pending: fresh + processing, failed };
}

export async function* failedRows(client: CoreClient): AsyncGenerator<QueueRow[]> {
  let token: string | undefined;
  do {
    const page = await client.listQueue('FAILED', token);
    yield page.rows;
    token = page.next;
  } while (token !== undefined);
}

export interface WaitOptions {
  pollIntervalMs: number;
  /** Give up when the pending count has not moved for this long. */
  stallTimeoutMs: number;
  signal?: AbortSignal;
  now(): number;
  onCounts(counts: QueueCounts): void;
}

/** Polls until the core's queue has processed everything; returns how many users are still queued. */
export async function waitForQueue(client: CoreClient, options: WaitOptions): Promise<number> {
  let lastPending = Number.POSITIVE_INFINITY;
  let lastChange = options.now();
  for (;;) {
    const counts = await queueCounts(client);
    options.onCounts(counts);
    if (counts.pending === 0) return 0;
    if (counts.pending !== lastPending) {
      lastPending = counts.pending;
      lastChange = options.now();
    } else if (options.now() - lastChange >= options.stallTimeoutMs) {
      return counts.pending;
    }
    if (options.signal?.aborted) return counts.pending;
    await delay(options.pollIntervalMs, options.signal);
  }
}

// Lookups of "already exists" rows run this many at a time: a resent batch can mean 10,000 of them.
const LOOKUP_CONCURRENCY = 16;

/**
 * Puts the core's FAILED rows into the results. Rows that only failed because the same user was
 * already imported (sent twice, or by an earlier run) are counted as such and removed from the queue,
 * so that they do not come back in the next report. Removing a page's rows does not move the cursor
 * of the next page, which starts after them.
 */
export async function collectFailedRows(
  client: CoreClient,
  existing: ExistingUsers,
  results: Results,
  ignoredIds: ReadonlySet<string>,
): Promise<void> {
  let canRemove = true;
  for await (const page of failedRows(client)) {
    const rows = page.filter((row) => !ignoredIds.has(row.id));
    const settled: string[] = [];
    for (let start = 0; start < rows.length; start += LOOKUP_CONCURRENCY) {
      const slice = rows.slice(start, start + LOOKUP_CONCURRENCY);
      const verdicts = await Promise.all(slice.map((row) => existing.isAlreadyImported(row.externalUserId, row.loginMethods?.[0] ?? {}, messageOf(row))));
      slice.forEach((row, i) => {
        if (verdicts[i]) {
          results.alreadyImported++;
          settled.push(row.id);
          return;
        }
        const method = row.loginMethods?.[0] ?? {};
        results.add({ user: row.externalUserId ?? method.email ?? method.phoneNumber ?? row.id, stage: 'import', reason: messageOf(row) });
      });
    }
    if (canRemove && settled.length > 0) canRemove = await removeRows(client, settled);
  }
}

function messageOf(row: QueueRow): string {
  return row.errorMessage ?? 'failed without a message';
}

/** False when the core has no remove route: the rows then simply stay. */
async function removeRows(client: CoreClient, ids: string[]): Promise<boolean> {
  try {
    await client.removeQueueRows(ids);
    return true;
  } catch (error) {
    if (error instanceof RouteMissingError) return false;
    throw error;
  }
}
