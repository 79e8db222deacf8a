import type pg from 'pg';
import type { Logger } from 'pino';
import { describeError } from '../db/pg-errors.js';

// The tables an import fills; the queue is left out (it empties again, and its statements are key-driven anyway).
const importedTables = [
  'users',
  'login_method_tenants',
  'user_groups',
  'user_ids',
  'user_id_mappings',
  'email_verifications',
  'user_metadata',
  'user_roles',
];
// Below this many new rows a refresh is not worth its sample.
const minimumRowsBetweenRefreshes = 10_000;

// ANALYZEs the user tables each time an import has about doubled them. Prepared statements of the sign-in,
// consume and lookup routes may hold generic plans made while the tables were empty (sequential scans, cheapest
// then); nothing replaces them while the statistics stay as they were, and with autovacuum off (or outrun by the
// import) they do. New statistics invalidate those plans in every connection of every core. Doubling keeps the
// cost to a few samples of at most 30,000 rows each, whatever the import's size.
export class StatisticsRefresher {
  private importedSinceRefresh = 0;
  private rowsAtLastRefresh = 0;
  private running: Promise<void> | undefined;
  private disabled = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly log: Logger,
  ) {}

  noteImported(rows: number): void {
    this.importedSinceRefresh += rows;
    if (this.disabled || this.running !== undefined) return;
    if (this.importedSinceRefresh < Math.max(minimumRowsBetweenRefreshes, this.rowsAtLastRefresh)) return;
    this.running = this.refresh().finally(() => (this.running = undefined));
  }

  async idle(): Promise<void> {
    await this.running;
  }

  private async refresh(): Promise<void> {
    this.importedSinceRefresh = 0;
    try {
      await this.pool.query(`ANALYZE ${importedTables.join(', ')}`);
      this.rowsAtLastRefresh = await this.estimatedUsers();
    } catch (error) {
      // Not the owner of the tables, say: imports work as before, only the other routes' plans may stay stale.
      this.disabled = true;
      this.log.warn({ error: describeError(error) }, 'bulk import: cannot refresh table statistics; run ANALYZE after the import');
    }
  }

  private async estimatedUsers(): Promise<number> {
    const { rows } = await this.pool.query<{ reltuples: number }>(
      "SELECT reltuples::float8 AS reltuples FROM pg_class WHERE oid = 'users'::regclass",
    );
    return Math.max(0, rows[0]?.reltuples ?? 0);
  }
}
