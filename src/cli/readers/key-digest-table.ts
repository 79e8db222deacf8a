// The keys of every user read so far. The first MAP_KEYS keys are kept as they are, in a Map: an export of tens of
// thousands of users never runs the digest code below, which costs more to warm up (V8 compiles it while the export
// is read) than the Map costs in all. Past that, as 96-bit digests in one typed array instead of strings in a Map:
// 16 bytes a slot (three digest words and the record number), so a million-user export (two million keys) costs about
// 67 MB instead of several hundred, and no per-key object reaches the garbage collector. Two different keys share all
// 96 bits with odds of about 1 in 10^16 at two million keys (a clash would show in the report as a twin naming the
// record it matched); the digest is fixed and the switch comes at the same key, so every pass and the dry run agree.

// About 65,000 users' keys: some 10 MB as strings in a Map.
const MAP_KEYS = 1 << 17;
const NO_KEYS: readonly string[] = Object.freeze([]);
const WORDS = 4;
const INITIAL_SLOTS = 1 << 12;

export class KeyDigestTable {
  /** The keys while there are at most mapKeys of them; undefined once they are digests. */
  private small: Map<string, number> | undefined = new Map();
  /** The keys of the last firstHeld() call while they are kept in the Map. */
  private pendingKeys: readonly string[] = NO_KEYS;
  private slots = new Uint32Array(INITIAL_SLOTS * WORDS);
  private mask = INITIAL_SLOTS - 1;
  private used = 0;
  /** The digests of the keys of the last firstHeld() call, three words each. */
  private found = new Uint32Array(48);
  private foundCount = 0;

  constructor(private readonly mapKeys = MAP_KEYS) {}

  /** The record number stored with this key, or 0 when the key is new. */
  get(key: string): number {
    if (this.small) return this.small.get(key) ?? 0;
    digest(key);
    const a = lanes[0];
    const b = lanes[1];
    const c = lanes[2];
    for (let slot = a & this.mask; ; slot = (slot + 1) & this.mask) {
      const at = slot * WORDS;
      const record = this.slots[at + 3];
      if (record === 0) return 0;
      if (this.slots[at] === a && this.slots[at + 1] === b && this.slots[at + 2] === c) return record;
    }
  }

  /**
   * Which of one user's keys is held first (its position and record number), or position -1 when none is. The
   * digests of the keys are kept for claim(), so each key of a user is digested once.
   */
  firstHeld(keys: readonly string[]): { position: number; record: number } {
    if (this.small) {
      for (let position = 0; position < keys.length; position++) {
        const record = this.small.get(keys[position]);
        if (record !== undefined) {
          this.pendingKeys = NO_KEYS;
          return { position, record };
        }
      }
      this.pendingKeys = keys;
      return { position: -1, record: 0 };
    }
    if (this.found.length < keys.length * 3) this.found = new Uint32Array(keys.length * 6);
    this.foundCount = keys.length;
    for (let position = 0; position < keys.length; position++) {
      const record = this.get(keys[position]);
      this.found.set(lanes, position * 3);
      if (record !== 0) {
        this.foundCount = 0;
        return { position, record };
      }
    }
    return { position: -1, record: 0 };
  }

  /** Stores every key of the last firstHeld() that found none held, with this 1-based record number. */
  claim(record: number): void {
    if (this.small) {
      for (const key of this.pendingKeys) this.small.set(key, record);
      this.pendingKeys = NO_KEYS;
      if (this.small.size > this.mapKeys) this.moveToDigests();
      return;
    }
    for (let at = 0; at < this.foundCount * 3; at += 3) {
      if ((this.used + 1) * 2 > this.mask + 1) this.grow();
      this.place(this.found[at], this.found[at + 1], this.found[at + 2], record);
      this.used++;
    }
    this.foundCount = 0;
  }

  /** Stores a key that get() answered 0 for; record numbers are 1-based. */
  set(key: string, record: number): void {
    if (this.small) {
      this.small.set(key, record);
      if (this.small.size > this.mapKeys) this.moveToDigests();
      return;
    }
    if ((this.used + 1) * 2 > this.mask + 1) this.grow();
    digest(key);
    this.place(lanes[0], lanes[1], lanes[2], record);
    this.used++;
  }

  private moveToDigests(): void {
    const keys = this.small!;
    this.small = undefined;
    for (const [key, record] of keys) this.set(key, record);
  }

  private place(a: number, b: number, c: number, record: number): void {
    for (let slot = a & this.mask; ; slot = (slot + 1) & this.mask) {
      const at = slot * WORDS;
      if (this.slots[at + 3] !== 0) continue;
      this.slots[at] = a;
      this.slots[at + 1] = b;
      this.slots[at + 2] = c;
      this.slots[at + 3] = record;
      return;
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Uint32Array(old.length * 2);
    this.mask = this.slots.length / WORDS - 1;
    for (let at = 0; at < old.length; at += WORDS) {
      if (old[at + 3] !== 0) this.place(old[at], old[at + 1], old[at + 2], old[at + 3]);
    }
  }
}

// Three 32-bit lanes of a MurmurHash3-style mix over the UTF-16 code units, each with its own seed and constants,
// then avalanched; keys are not crafted to collide (they are the operator's own export).
// The digest of the last key, in one reused array: a table of millions of keys allocates nothing per key.
const lanes = new Uint32Array(3);

function digest(key: string): void {
  let a = 0x9e3779b9;
  let b = 0x85ebca6b;
  let c = 0xc2b2ae35;
  for (let i = 0; i < key.length; i++) {
    const unit = key.charCodeAt(i);
    a = lane(a, unit, 0xcc9e2d51, 0x1b873593);
    b = lane(b, unit, 0x239b961b, 0xab0e9789);
    c = lane(c, unit, 0x38b34ae5, 0xa1e38b93);
  }
  lanes[0] = avalanche(a ^ key.length);
  lanes[1] = avalanche(b ^ key.length);
  lanes[2] = avalanche(c ^ key.length);
}

function lane(state: number, unit: number, first: number, second: number): number {
  let k = Math.imul(unit, first);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, second);
  const h = state ^ k;
  return (Math.imul((h << 13) | (h >>> 19), 5) + 0xe6546b64) | 0;
}

function avalanche(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
