import type { Queryable } from '../db/pool.js';

export class HealthService {
  constructor(private readonly db: Queryable) {}

  async check(): Promise<void> {
    await this.db.query('SELECT 1');
  }
}
