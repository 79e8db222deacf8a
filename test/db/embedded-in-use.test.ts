import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/db/embedded.js';

// A second core started from the same checkout finds the embedded PostgreSQL of the first in ./data.
describe('a second core on a data folder in use', () => {
  let dir: string;
  let first: EmbeddedDatabase;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'identity-core-in-use-'));
    // PostgreSQL runs as the postgres user when the tests run as root; it must reach its data folder.
    fs.chmodSync(dir, 0o755);
    first = await startEmbeddedDatabase(path.join(dir, 'data'), () => {});
  }, 60_000);

  afterAll(async () => {
    await first?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('stops at once, says the folder is in use and names EMBEDDED_DATA_DIR, and leaves the first server serving', async () => {
    const dataDir = path.join(dir, 'data');
    const pid = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const child = spawn(process.execPath, ['dist/server.js', '--port=0', '--host=127.0.0.1', '--config=test/fixtures/empty.yaml'], {
      env: { PATH: process.env.PATH ?? '', EMBEDDED_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect({ code, stderr }).toEqual({
      code: 1,
      stderr: `identity-core: failed to start: the data folder ${dataDir} is in use by a running PostgreSQL (pid ${pid}), most likely another core started from the same folder: stop that core, or give this one a folder of its own with EMBEDDED_DATA_DIR (embedded_data_dir), or a server of yours with DATABASE_URL\n`,
    });
    const pg = await import('pg');
    const client = new pg.default.Client({ connectionString: first.connectionString });
    await client.connect();
    expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await client.end();
  }, 60_000);
});
