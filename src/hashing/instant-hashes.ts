import type { HashFormat } from './format.js';

export interface InstantHash {
  format: HashFormat<unknown>;
  parsed: unknown;
}

/**
 * Stored hashes of the `INSTANT` class already parsed, so that signing in to the same account again skips detection
 * and the strict parse, which cost as much as the digest itself. Keyed by the stored hash as read from the database:
 * the entry's parsed value holds the same salt and digest, so the key adds no secret, and a digest of it as key
 * would cost a quarter of a verification. Bounded in count; the oldest entry goes first. Parsing at sign-in holds a
 * hash to the hard limits only and does not depend on configuration, so an entry never goes stale.
 */
export class InstantHashes {
  private readonly entries = new Map<string, InstantHash>();

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 0) throw new RangeError(`capacity must be a non-negative integer, got ${capacity}`);
  }

  get(storedHash: string): InstantHash | undefined {
    return this.entries.get(storedHash);
  }

  remember(storedHash: string, entry: InstantHash): void {
    if (this.capacity === 0) return;
    if (this.entries.size >= this.capacity && !this.entries.has(storedHash)) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(storedHash, entry);
  }

  get size(): number {
    return this.entries.size;
  }
}
