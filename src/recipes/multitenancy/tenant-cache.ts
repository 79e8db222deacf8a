import type pg from 'pg';
import type { Logger } from 'pino';
import { listTenantIds, TENANTS_CHANNEL } from './repository.js';
import { PUBLIC_TENANT } from './tenant-id.js';

export const TENANT_POLL_INTERVAL_MS = 10_000;

export interface TenantCacheOptions {
  pool: pg.Pool;
  log: Logger;
  /** false behind a transaction pooler, where LISTEN cannot work: the poll alone keeps the cache fresh. */
  listen: boolean;
  pollIntervalMs?: number;
}

/**
 * Which tenants exist, in memory, so a request under /<t>/ costs no query (contract-multitenancy T-2). Reloaded
 * when any core notifies a change (writes notify in their transaction) and every 10 s in case a notification was
 * missed; the core that writes reloads before it answers, so it sees its own change at once.
 */
export class TenantCache {
  private ids: ReadonlySet<string> = new Set([PUBLIC_TENANT]);
  private loaded = false;
  private reloading: Promise<void> | undefined;
  private again = false;
  private listener: pg.PoolClient | undefined;
  private schema: string | undefined;
  private poll: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: TenantCacheOptions) {}

  /** Whether the tenant exists; before the first load, the database answers. */
  async has(tenantId: string): Promise<boolean> {
    if (tenantId === PUBLIC_TENANT || this.ids.has(tenantId)) return true;
    if (this.loaded) return false;
    await this.reload();
    return this.ids.has(tenantId);
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
    await this.reloading?.catch(() => undefined);
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
          this.ids = new Set(await listTenantIds(this.options.pool));
          this.loaded = true;
        } while (this.again);
      } finally {
        this.reloading = undefined;
      }
    })();
    return this.reloading;
  }

  private async refresh(): Promise<void> {
    try {
      if (this.options.listen && !this.listener && !this.stopped) await this.listen();
      await this.reload();
    } catch (err) {
      this.options.log.warn({ err }, 'reloading the tenant list failed; trying again at the next poll');
    }
  }

  private async listen(): Promise<void> {
    const client = await this.options.pool.connect();
    if (this.stopped) return client.release();
    this.listener = client;
    client.on('error', () => this.dropListener());
    client.on('notification', (message) => {
      if (message.channel === TENANTS_CHANNEL && message.payload === this.schema) {
        this.reload().catch((err: unknown) => this.options.log.warn({ err }, 'reloading the tenant list failed'));
      }
    });
    try {
      this.schema = (await client.query<{ schema: string }>('SELECT current_schema() AS schema')).rows[0].schema;
      await client.query(`LISTEN ${TENANTS_CHANNEL}`);
    } catch (error) {
      this.dropListener();
      throw error;
    }
  }

  // The connection is closed rather than returned: a pooled connection must not keep listening.
  private dropListener(): void {
    const client = this.listener;
    this.listener = undefined;
    if (!client) return;
    client.removeAllListeners('notification');
    client.release(true);
  }
}
