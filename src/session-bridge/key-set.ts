import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';

// A key set is at most this large; Google's and Auth0's are a few kilobytes.
const MAX_JWKS_BYTES = 256 * 1024;
/** Fetches of one source's keys are at least this far apart, whatever arrives: invented `kid`s cannot drive traffic. */
export const MIN_FETCH_INTERVAL_MS = 30_000;

export type KeyLookup =
  { status: 'FOUND'; keys: JWTVerifyGetKey } | { status: 'UNKNOWN_KEY' } | { status: 'UNAVAILABLE'; retryAfterMs: number; reason: string };

export type FetchResult = 'ok' | 'failed';

interface Fetched {
  kids: ReadonlySet<string>;
  keys: JWTVerifyGetKey;
  at: number;
}

export interface KeySetOptions {
  url: string;
  timeoutMs: number;
  ttlMs: number;
  clock: () => number;
  onFetch?: (result: FetchResult, reason?: string) => void;
}

/**
 * One source's published keys: fetched on first use, kept for the TTL, fetched again when it runs out or when a
 * token names a `kid` the set lacks — never twice within MIN_FETCH_INTERVAL_MS, and concurrent needs share one
 * fetch. A provider that cannot be reached answers UNAVAILABLE, so a token is never believed on a guess.
 */
export class KeySet {
  private current: Fetched | undefined;
  private lastAttemptAt = -Infinity;
  private lastFailure: string | undefined;
  private inFlight: Promise<void> | undefined;

  constructor(private readonly options: KeySetOptions) {}

  async lookup(kid: string): Promise<KeyLookup> {
    const now = this.options.clock();
    const current = this.current;
    const fresh = current !== undefined && now - current.at < this.options.ttlMs;
    if (fresh && current.kids.has(kid)) return { status: 'FOUND', keys: current.keys };
    if (!this.inFlight && now - this.lastAttemptAt < MIN_FETCH_INTERVAL_MS) {
      if (fresh && this.lastFailure === undefined) return { status: 'UNKNOWN_KEY' };
      // The last fetch failed (or the set went stale): what the provider publishes now is not known.
      return {
        status: 'UNAVAILABLE',
        retryAfterMs: this.lastAttemptAt + MIN_FETCH_INTERVAL_MS - now,
        reason: this.lastFailure ?? 'stale keys',
      };
    }
    this.inFlight ??= this.refresh().finally(() => (this.inFlight = undefined));
    await this.inFlight;
    if (this.lastFailure !== undefined) return { status: 'UNAVAILABLE', retryAfterMs: MIN_FETCH_INTERVAL_MS, reason: this.lastFailure };
    return this.current!.kids.has(kid) ? { status: 'FOUND', keys: this.current!.keys } : { status: 'UNKNOWN_KEY' };
  }

  private async refresh(): Promise<void> {
    this.lastAttemptAt = this.options.clock();
    try {
      const jwks = await fetchKeySet(this.options.url, this.options.timeoutMs);
      const kids = new Set(jwks.keys.flatMap((key) => (typeof key.kid === 'string' ? [key.kid] : [])));
      this.current = { kids, keys: createLocalJWKSet(jwks), at: this.options.clock() };
      this.lastFailure = undefined;
      this.options.onFetch?.('ok');
    } catch (error) {
      this.lastFailure = (error as Error).message;
      this.options.onFetch?.('failed', this.lastFailure);
    }
  }
}

async function fetchKeySet(url: string, timeoutMs: number): Promise<JSONWebKeySet> {
  const signal = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { redirect: 'manual', signal, headers: { accept: 'application/json' } });
  } catch {
    throw new Error(signal.aborted ? 'timeout' : 'network error');
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`answered ${response.status}`);
  }
  const text = await readCapped(response, signal);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error('answer is not JSON');
  }
  const keys = (body as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.some((key) => key === null || typeof key !== 'object')) throw new Error('answer has no keys list');
  // Only signing keys: an encryption key published beside them must not verify anything.
  return { keys: (keys as JSONWebKeySet['keys']).filter((key) => key.use === undefined || key.use === 'sig') };
}

async function readCapped(response: Response, signal: AbortSignal): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = (response.body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<Uint8Array>;
    try {
      next = await reader.next();
    } catch (error) {
      throw new Error(signal.aborted ? 'timeout' : 'network error', { cause: error });
    }
    if (next.done) break;
    size += next.value.byteLength;
    if (size > MAX_JWKS_BYTES) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error('answer too large');
    }
    chunks.push(Buffer.from(next.value));
  }
  return Buffer.concat(chunks).toString('utf8');
}
