import crypto from 'node:crypto';
import type pg from 'pg';
import type { Logger } from 'pino';
import { withTransaction } from '../db/transaction.js';
import { generateStoredKeyPair, joinKeyPair, loadSigningKey, splitKeyPair, type SigningKey } from './key-pair.js';
import {
  deleteDynamicKeysCreatedBefore,
  findDynamicKeysCreatedSince,
  findOrInsertSecret,
  findStaticKey,
  insertDynamicKey,
  insertStaticKey,
  lockSigningKeys,
} from './repository.js';

export interface SigningKeysOptions {
  pool: pg.Pool;
  clock: () => number;
  log: Logger;
  /** access_token_dynamic_signing_key_update_interval, in ms. */
  updateIntervalMs: number;
  /** access_token_validity, in ms. */
  accessTokenValidityMs: number;
}

// A new dynamic key is published this long before it first signs, so every verifier (the SDK caches the JWKS) can
// know it before it meets a token signed with it (S-3.1).
export const keyOverlapMs = 60_000;
// An unknown kid makes the keys reload from the database (another core may have added it), at most this often, so
// tokens with made-up kids cannot turn into a query each. Measured in real time, whatever clock the keys are dated by.
const reloadCooldownMs = 500;
const refreshTokenSecretName = 'refresh_token_key';

/**
 * The access-token and JWT signing keys of every core on one database. The keys live in PostgreSQL; this holds
 * them in memory and goes back to the database only when the newest dynamic key nears the end of its interval (then
 * one core, holding an advisory lock, adds the next key and the others read it) or a token names a kid not held.
 */
export class SigningKeys {
  private dynamic: SigningKey[] = [];
  private staticKey: SigningKey | undefined;
  private secret: Buffer | undefined;
  private loading: Promise<void> | undefined;
  private lastLoadAt = -Infinity;
  private jwksCache: { body: string; validUntil: number } | undefined;
  private readonly imported = new Map<string, SigningKey>();

  constructor(private readonly options: SigningKeysOptions) {}

  /** Keys older than this are neither listed nor accepted: one interval of signing plus two token lifetimes. */
  get listingWindowMs(): number {
    return this.options.updateIntervalMs + 2 * this.options.accessTokenValidityMs;
  }

  /** Loads (and, when due, creates) the keys; cheap when nothing is due. */
  async ready(): Promise<void> {
    if (this.isFresh()) return;
    await this.reload();
  }

  private isFresh(): boolean {
    const newest = this.dynamic[0];
    return this.staticKey !== undefined && newest !== undefined && newest.createdAt > this.options.clock() - this.rotationDueAfterMs();
  }

  private rotationDueAfterMs(): number {
    return this.options.updateIntervalMs - this.overlapMs();
  }

  // An interval shorter than two overlaps (fractions of an hour are allowed) publishes its key half an interval ahead.
  private overlapMs(): number {
    return Math.min(keyOverlapMs, this.options.updateIntervalMs / 2);
  }

  private reload(): Promise<void> {
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async load(): Promise<void> {
    const { pool, clock, log } = this.options;
    const rows = await withTransaction(pool, async (client) => {
      await lockSigningKeys(client);
      const now = clock();
      let staticRow = await findStaticKey(client);
      if (!staticRow) {
        await insertStaticKey(client, `s-${crypto.randomUUID()}`, joinKeyPair(await generateStoredKeyPair()), now);
        staticRow = await findStaticKey(client);
      }
      let dynamicRows = await findDynamicKeysCreatedSince(client, now - this.listingWindowMs);
      if (dynamicRows.length === 0 || dynamicRows[0].created_at_time <= now - this.rotationDueAfterMs()) {
        const value = joinKeyPair(await generateStoredKeyPair());
        // The creation time is read after generating, so a slow generation never makes a key older than its row says.
        const createdAt = Math.max(clock(), (dynamicRows[0]?.created_at_time ?? 0) + 1);
        await insertDynamicKey(client, createdAt, value);
        log.info({ kid: `d-${createdAt}` }, 'new access-token signing key published');
        dynamicRows = [{ created_at_time: createdAt, value }, ...dynamicRows];
      }
      const secret = await findOrInsertSecret(client, refreshTokenSecretName, crypto.randomBytes(32).toString('base64'), now);
      return { staticRow: staticRow!, dynamicRows, secret };
    });
    const loadKey = async (kid: string, createdAt: number, value: string) => {
      const known = this.imported.get(kid);
      if (known) return known;
      const key = await loadSigningKey(kid, createdAt, splitKeyPair(value));
      this.imported.set(kid, key);
      return key;
    };
    this.staticKey = await loadKey(rows.staticRow.key_id, rows.staticRow.created_at, rows.staticRow.key_string);
    this.dynamic = await Promise.all(rows.dynamicRows.map((row) => loadKey(`d-${row.created_at_time}`, row.created_at_time, row.value)));
    for (const kid of this.imported.keys()) {
      if (kid !== this.staticKey.kid && !this.dynamic.some((key) => key.kid === kid)) this.imported.delete(kid);
    }
    this.secret = Buffer.from(rows.secret, 'base64');
    this.jwksCache = undefined;
    this.lastLoadAt = performance.now();
  }

  private listedDynamicKeys(): SigningKey[] {
    const since = this.options.clock() - this.listingWindowMs;
    return this.dynamic.filter((key) => key.createdAt >= since);
  }

  /** The dynamic key that signs now: the newest, unless it was published less than the overlap ago (S-3.1). */
  async currentDynamicKey(): Promise<SigningKey> {
    await this.ready();
    const now = this.options.clock();
    const [newest, previous] = this.dynamic;
    if (previous && newest.createdAt > now - this.overlapMs() && previous.createdAt + this.options.updateIntervalMs > now) return previous;
    return newest;
  }

  async getStaticKey(): Promise<SigningKey> {
    await this.ready();
    return this.staticKey!;
  }

  /** The secret refresh tokens are encrypted with: one per database, made by the first core. */
  async refreshTokenSecret(): Promise<Buffer> {
    await this.ready();
    return this.secret!;
  }

  /** The listed key with this kid, reloading once from the database when it is not held (another core made it). */
  async findVerificationKey(kid: string): Promise<SigningKey | undefined> {
    await this.ready();
    const found = this.findListed(kid);
    if (found || performance.now() - this.lastLoadAt < reloadCooldownMs) return found;
    await this.reload();
    return this.findListed(kid);
  }

  private findListed(kid: string): SigningKey | undefined {
    if (kid === this.staticKey?.kid) return this.staticKey;
    return this.listedDynamicKeys().find((key) => key.kid === kid);
  }

  /** The JWKS document, serialised once per change of the listed keys: dynamic keys newest first, then the static one. */
  async jwks(): Promise<{ body: string; maxAgeSeconds: number }> {
    await this.ready();
    const now = this.options.clock();
    const newest = this.dynamic[0];
    if (!this.jwksCache || now >= this.jwksCache.validUntil) {
      const listed = this.listedDynamicKeys();
      const oldest = listed[listed.length - 1];
      this.jwksCache = {
        body: JSON.stringify({ keys: [...listed.map((key) => key.jwk), this.staticKey!.jwk] }),
        validUntil: Math.min(oldest.createdAt + this.listingWindowMs, newest.createdAt + this.rotationDueAfterMs()),
      };
    }
    const maxAgeSeconds = Math.max(1, Math.floor((newest.createdAt + this.rotationDueAfterMs() - now) / 1000));
    return { body: this.jwksCache.body, maxAgeSeconds };
  }

  /** The keys as JWKs (GET /recipe/jwt/jwks). */
  async publicKeys(): Promise<object[]> {
    await this.ready();
    return [...this.listedDynamicKeys().map((key) => key.jwk), this.staticKey!.jwk];
  }

  /** Deletes dynamic keys past the listing window (the cleanup job); no token they signed can still verify. */
  async deleteExpiredKeys(): Promise<number> {
    return deleteDynamicKeysCreatedBefore(this.options.pool, this.options.clock() - this.listingWindowMs);
  }
}
