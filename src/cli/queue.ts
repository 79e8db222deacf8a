import { delay, type CoreClient } from './core-client.js';

export interface QueueCounts {
  /** NEW + PROCESSING: sent but not processed yet. */
  pending: number;
  failed: number;
}

export async function queueCounts(client: CoreClient): Promise<QueueCounts> {
  const together = await client.countQueueByStatus();
  if (together !== undefined) return { pending: together.NEW + together.PROCESSING, failed: together.FAILED };
  const [fresh, processing, failed] = await Promise.all([
    client.countQueue('NEW'),
    client.countQueue('PROCESSING'),
    client.countQueue('FAILED'),
  ]);
  return { pending: fresh + processing, failed };
}

/** The queue rows with the given status whose id is one of `ids`, with their error message. */
export async function queueRowsAmong(client: CoreClient, status: 'NEW' | 'PROCESSING' | 'FAILED', ids: ReadonlySet<string>) {
  const rows = new Map<string, string>();
  let token: string | undefined;
  do {
    const page = await client.listQueue(status, token);
    for (const row of page.rows) if (ids.has(row.id)) rows.set(row.id, row.errorMessage ?? 'failed without a message');
    token = page.next;
  } while (token !== undefined);
  return rows;
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
