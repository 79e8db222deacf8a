import crypto from 'node:crypto';
import pg from 'pg';
import { createPool } from '../../src/db/pool.js';
import { migrate } from '../../src/db/migrate.js';

/**
 * Every schema a run creates (the core's own and the ceilings') is recorded here and dropped at the end,
 * also when the run fails or is interrupted.
 */
export class SchemaRegistry {
  private readonly runId = `bench_${Date.now().toString(36)}_${crypto.randomBytes(3).toString('hex')}`;
  private readonly created: string[] = [];
  private counter = 0;

  constructor(private readonly databaseUrl: string) {}

  /** A fresh schema name; the schema itself is created by whoever migrates it first. */
  reserve(label: string): string {
    const name = `${this.runId}_${++this.counter}_${label.replace(/[^a-z0-9]/g, '_')}`;
    this.created.push(name);
    return name;
  }

  /** A reserved schema with every migration applied, and a pool on it for seeding and checks. */
  async migrated(label: string, poolSize = 4): Promise<{ schema: string; pool: pg.Pool }> {
    const schema = this.reserve(label);
    const pool = createPool({ connectionString: this.databaseUrl, schema, size: poolSize });
    await migrate(pool, schema);
    return { schema, pool };
  }

  pool(schema: string, size = 4): pg.Pool {
    return createPool({ connectionString: this.databaseUrl, schema, size });
  }

  names(): string[] {
    return [...this.created];
  }

  async dropAll(): Promise<void> {
    if (this.created.length === 0) return;
    const client = new pg.Client({ connectionString: this.databaseUrl });
    await client.connect();
    try {
      for (const schema of this.created.splice(0)) {
        await client.query(`DROP SCHEMA IF EXISTS ${client.escapeIdentifier(schema)} CASCADE`);
      }
    } finally {
      await client.end();
    }
  }
}
