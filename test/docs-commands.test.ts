import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { databaseUrl } from './helper.js';

// Every shell block marked ```sh runnable in the README and in docs/ runs as printed against a core of this test's
// own, started with API keys. The blocks get no variable from the test: the README's set-up block (the one exporting
// IDENTITY_CORE_API_KEY) runs before each block, as a reader's shell would have it. The one thing rewritten is where
// the core listens: this core has a free port of its own, never 3567, so that a core the reader runs is not touched.
// Blocks run in order, each in a folder of its own document, so a block may use what an earlier block created.
const documentedUrl = 'http://localhost:3567';
// The key the README's set-up block exports and its Docker line starts the core with.
const apiKey = 'a-long-api-key-of-20-chars-or-more';
// The published $f_scrypt$ test vector's signer key, which docs/hash-formats.md quotes.
const signerKey = 'gRhC3eDeQOdyEn4bMd9c6kxguWVmcIVq/SKa0JDPFeM6TcEevkaW56sIWfx88OHbJKnCXdWscZx0l2WbCJ1wbg==';
const documents = ['README.md', ...fs.readdirSync('docs').map((name) => path.join('docs', name))].filter((file) => file.endsWith('.md'));

export function runnableBlocks(markdown: string): { line: number; script: string }[] {
  const blocks: { line: number; script: string }[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!/^```sh runnable\s*$/.test(lines[i])) continue;
    const end = lines.findIndex((line, j) => j > i && line.startsWith('```'));
    blocks.push({ line: i + 1, script: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return blocks;
}

const schema = `docs_${crypto.randomBytes(5).toString('hex')}`;
let server: ReturnType<typeof spawn> | undefined;
const binDir = fs.mkdtempSync(path.join(os.tmpdir(), 'identity-core-docs-bin-'));

let coreUrl = '';

beforeAll(async () => {
  // The command the README tells a reader to run from the checkout, reachable from any folder.
  fs.writeFileSync(path.join(binDir, 'identity-core'), `#!/bin/sh\nexec node ${path.resolve('dist/cli/main.js')} "$@"\n`, { mode: 0o755 });
  server = spawn(process.execPath, ['dist/server.js', '--port=0', '--host=127.0.0.1', '--config=test/fixtures/empty.yaml'], {
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: databaseUrl,
      POSTGRESQL_TABLE_SCHEMA: schema,
      API_KEYS: apiKey,
      IDP_PASSWORD_HASHING_SIGNER_KEY: signerKey,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  server.stdout!.on('data', (chunk) => (output += chunk));
  server.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => server!.on('exit', resolve));
  // The address comes from this process's own log line, so no other server listening somewhere is taken for it.
  coreUrl = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /Server listening at (http:\/\/[^"\s]+)/.exec(output);
      if (!match) return;
      clearInterval(timer);
      resolve(match[1]);
    }, 20);
    void exited.then(() => {
      clearInterval(timer);
      reject(new Error(`the core did not start: ${output}`));
    });
    server!.on('error', (error) => reject(new Error(`the core could not be started: ${error.message}`)));
    setTimeout(() => {
      clearInterval(timer);
      reject(new Error(`the core did not answer within 35 s: ${output}`));
    }, 35_000).unref();
  });
}, 40_000);

afterAll(async () => {
  server?.kill('SIGTERM');
  const pool = new pg.Pool({ connectionString: databaseUrl });
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pool.end();
});

describe('runnable shell blocks of the documentation', () => {
  it('finds blocks in the README and marks nothing else as runnable', () => {
    expect(runnableBlocks(fs.readFileSync('README.md', 'utf8')).length).toBeGreaterThanOrEqual(2);
    expect(runnableBlocks('```sh\ncurl x\n```\n```sh runnable\necho 1\n```\n')).toEqual([{ line: 4, script: 'echo 1' }]);
  });

  const setUp = runnableBlocks(fs.readFileSync('README.md', 'utf8'))[0];

  it("starts with the README's set-up block, on a core that refuses a request without the key", async () => {
    expect(setUp.script).toContain('export IDENTITY_CORE_API_KEY=');
    expect((await fetch(`${coreUrl}/apiversion`)).status).toBe(401);
    expect(coreUrl).not.toContain(':3567');
  });

  for (const document of documents) {
    const blocks = runnableBlocks(fs.readFileSync(document, 'utf8'));
    if (blocks.length === 0) continue;
    it(`${document}: ${blocks.length} block(s) run as printed`, () => {
      const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'identity-core-docs-'));
      for (const block of blocks) {
        const script = `${setUp.script}\n${block.script}`.replaceAll(documentedUrl, coreUrl);
        const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], {
          cwd: folder,
          encoding: 'utf8',
          timeout: 60_000,
          env: { PATH: `${binDir}:${process.env.PATH ?? ''}`, HOME: folder },
        });
        expect({ block: `${document}:${block.line}`, status: run.status, stderr: run.stderr }).toEqual({
          block: `${document}:${block.line}`,
          status: 0,
          stderr: expect.any(String),
        });
      }
    }, 120_000);
  }
});
