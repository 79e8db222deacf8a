import type pg from 'pg';
import type { Logger } from 'pino';
import { TENANTS_CHANNEL } from './repository.js';
import { PUBLIC_TENANT } from './tenant-id.js';

export const TENANT_POLL_INTERVAL_MS = 10_000;

export interface TenantCacheOptions<T extends { tenantId: string }> {
  pool: pg.Pool;
  /** Reads every tenant as the CDI answers it. */
  load: () => Promise<T[]>;
  log: Logger;
  /**
   * Opens the connection that listens, outside the pool so it never takes a request's place; undefined behind a
   * transaction pooler, where LISTEN cannot work: the poll alone keeps the cache fresh.
   */
  connectListener?: () => Promise<pg.Client>;
  pollIntervalMs?: number;
}

/**
 * The tenants, in memory, so a request under /<t>/ costs no query (contract-multitenancy T-2) and neither does the
 * tenant read the SDK makes on every sign-in. Reloaded when any core notifies a change (writes notify in their
 * transaction) and every 10 s in case a notification was missed; the core that writes reloads before it answers, so
 * it sees its own change at once.
 */
export class TenantCache<T extends { tenantId: string }> {
  private ids: ReadonlySet<string> = new Set([PUBLIC_TENANT]);
  private tenants: ReadonlyMap<string, T> = new Map();
  private loaded = false;
  // A load completed while this core was listening: every change since is announced to it.
  private followed = false;
  private reloading: Promise<void> | undefined;
  private again = false;
  private listener: pg.Client | undefined;
  private schema: string | undefined;
  private poll: NodeJS.Timeout | undefined;
  private stopped = false;
  private connecting: Promise<void> | undefined;

  constructor(private readonly options: TenantCacheOptions<T>) {}

  /** Whether this core is listening for other cores' changes (false between a lost connection and the next poll). */
  get listening(): boolean {
    return this.listener !== undefined;
  }

  /** Whether the tenant exists; before the first load, the database answers. */
  async has(tenantId: string): Promise<boolean> {
    if (tenantId === PUBLIC_TENANT || this.ids.has(tenantId)) return true;
    if (this.loaded) return false;
    await this.reload();
    return this.ids.has(tenantId);
  }

  /**
   * The tenant as last loaded, while this core follows every change (listening, loaded since); otherwise undefined
   * and the database answers: behind a transaction pooler, or between a lost connection and the next poll, the
   * cache may be up to one poll late.
   */
  current(tenantId: string): T | undefined {
    return this.followed && this.listener ? this.tenants.get(tenantId) : undefined;
  }

  /**
   * The tenant as last loaded (read once if nothing was yet), for what each request reads of its tenant: its login
   * methods and settings. Up to one poll late where `current` would ask the database, as the tenant ids are.
   */
  async lastLoaded(tenantId: string): Promise<T | undefined> {
    if (!this.loaded) await this.reload();
    return this.tenants.get(tenantId);
  }

  /** Every tenant as last loaded (read once if nothing was yet). */
  async allLoaded(): Promise<T[]> {
    if (!this.loaded) await this.reload();
    return [...this.tenants.values()];
  }

  start(): void {
    this.stopped = false;
    const every = this.options.pollIntervalMs ?? TENANT_POLL_INTERVAL_MS;
    this.poll ??= setInterval(() => void this.refresh(), every).unref();
    void this.refresh();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.poll);
    this.poll = undefined;
    // A connection still being opened is closed before the database may go away.
    await Promise.all([this.reloading?.catch(() => undefined), this.connecting?.catch(() => undefined)]);
    this.dropListener();
  }

  /** Reads the tenant list again; concurrent calls share one read, and a call during a read causes one more. */
  reload(): Promise<void> {
    if (this.reloading) {
      this.again = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      try {
        do {
          this.again = false;
          const listening = this.listener !== undefined;
          const tenants = await this.options.load();
          this.tenants = new Map(tenants.map((tenant) => [tenant.tenantId, tenant]));
          this.ids = new Set([PUBLIC_TENANT, ...this.tenants.keys()]);
          this.loaded = true;
          // Only a load that started after LISTEN has seen every change not yet announced here.
          if (listening && this.listener) this.followed = true;
        } while (this.again);
      } finally {
        this.reloading = undefined;
      }
    })();
    return this.reloading;
  }

  private async refresh(): Promise<void> {
    try {
      const connect = this.options.connectListener;
      if (connect && !this.listener && !this.connecting && !this.stopped) {
        this.connecting = this.listen(connect).finally(() => (this.connecting = undefined));
        await this.connecting;
      }
      // After listening starts: a change made while the connection was being opened was announced to no one here.
      await this.reload();
    } catch (err) {
      this.options.log.warn({ err }, 'reloading the tenant list failed; trying again at the next poll');
    }
  }

  private async listen(connect: () => Promise<pg.Client>): Promise<void> {
    // The schema a change is announced for: other schemas of the same database have tenant lists of their own.
    this.schema ??= (await this.options.pool.query<{ schema: string }>('SELECT current_schema() AS schema')).rows[0].schema;
    const client = await connect();
    // A lost connection is dropped and opened again at the next poll; the handler stays on it, as an error event with
    // no handler would end the process.
    client.on('error', () => {
      if (this.listener === client) this.dropListener();
    });
    client.on('end', () => {
      if (this.listener === client) this.dropListener();
    });
    if (this.stopped) return void client.end().catch(() => undefined);
    client.on('notification', (message) => {
      if (message.channel === TENANTS_CHANNEL && message.payload === this.schema) {
        this.reload().catch((err: unknown) => this.options.log.warn({ err }, 'reloading the tenant list failed'));
      }
    });
    try {
      await client.query(`LISTEN ${TENANTS_CHANNEL}`);
    } catch (error) {
      client.end().catch(() => undefined);
      throw error;
    }
    if (this.stopped) return void client.end().catch(() => undefined);
    this.listener = client;
  }

  private dropListener(): void {
    const client = this.listener;
    this.listener = undefined;
    this.followed = false;
    if (!client) return;
    client.removeAllListeners('notification');
    client.end().catch(() => undefined);
  }
}
