import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import bcrypt from 'bcrypt';
import { databaseUrl } from './helper.js';

// These tests start the same command as the container image (`node dist/server.js`), built by `npm test`'s pretest.
interface RunningServer {
  child: ChildProcess;
  output: () => string;
  url: string;
  exited: Promise<number | null>;
}

const schemas: string[] = [];

function startServer(env: Record<string, string>, args: string[] = []): Promise<RunningServer> {
  const child = spawn(process.execPath, ['dist/server.js', '--port=0', '--host=127.0.0.1', '--config=test/fixtures/empty.yaml', ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /Server listening at (http:\/\/[^"\s]+)/.exec(output);
      if (match) {
        clearInterval(timer);
        resolve({ child, output: () => output, url: match[1], exited });
      }
    }, 20);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`server exited with ${code}: ${output}`));
    });
  });
}

function externalEnv(): Record<string, string> {
  const schema = `server_${crypto.randomBytes(5).toString('hex')}`;
  schemas.push(schema);
  return { DATABASE_URL: databaseUrl, POSTGRESQL_TABLE_SCHEMA: schema };
}

afterAll(async () => {
  const pool = new pg.Pool({ connectionString: databaseUrl });
  for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pool.end();
});

describe('server process', () => {
  it('serves /hello from a cold start and stops cleanly on SIGTERM', async () => {
    const server = await startServer(externalEnv());
    const response = await fetch(`${server.url}/hello`);
    expect([response.status, await response.text()]).toEqual([200, 'Hello\n']);
    expect(server.output()).toMatch(/database: external PostgreSQL at 127\.0\.0\.1:\d+\/\w+/);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain('SIGTERM received');
    expect(server.output()).toContain('"msg":"stopped"');
  });

  it('finishes a request that is in flight when SIGTERM arrives', async () => {
    const server = await startServer(externalEnv());
    const post = (path: string, body: object) =>
      fetch(`${server.url}${path}`, { method: 'POST', body: JSON.stringify(body) }).then(async (r) => [r.status, await r.json()]);
    // A costly hash keeps the sign-in on the thread pool long enough for the signal to arrive mid-request.
    const passwordHash = await bcrypt.hash('old password', 13);
    expect((await post('/recipe/user/passwordhash/import', { email: 'slow@example.com', passwordHash }))[0]).toBe(200);
    const signIn = post('/recipe/signin', { email: 'slow@example.com', password: 'old password' });
    await new Promise((resolve) => setTimeout(resolve, 150));
    server.child.kill('SIGTERM');
    const [status, body] = await signIn;
    expect([status, (body as { status: string }).status]).toEqual([200, 'OK']);
    expect(await server.exited).toBe(0);
  });

  it.each([
    [
      { API_KEYS: 'too-short' },
      'identity-core: invalid configuration: One of the API keys is too short. Please use at least 20 characters',
    ],
    [{ PASSWORDLESS_CODE_LIFETIME: '0' }, `identity-core: invalid configuration: 'passwordless_code_lifetime' must be > 0`],
    [
      { IDP_PASSWORD_HASHING_SIGNER_KEY: 'c2lnbmVy!' },
      "identity-core: invalid configuration: 'idp_password_hashing_signer_key' is not valid base64: " +
        'character 9 of 9 is not in the base64 alphabet',
    ],
    [
      { ALLOW_EMBEDDED_DATABASE: 'false' },
      'identity-core: invalid configuration: no database configured: set DATABASE_URL (or postgresql_connection_uri or postgresql_host); ' +
        "the embedded PostgreSQL is off ('allow_embedded_database' is false)",
    ],
  ])('refuses to start with an invalid setting %j, says why in one line, and starts no database', async (env, message) => {
    const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'identity-core-refused-')), 'data');
    const child = spawn(process.execPath, ['dist/server.js', '--config=test/fixtures/empty.yaml'], {
      env: { PATH: process.env.PATH ?? '', EMBEDDED_DATA_DIR: dataDir, ...env },
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect([code, stderr]).toEqual([1, `${message}\n`]);
    expect(fs.existsSync(dataDir)).toBe(false);
    fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
  });

  it('runs on an embedded PostgreSQL whose data survives a restart', async () => {
    const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'identity-core-embedded-')), 'data');
    fs.chmodSync(path.dirname(dataDir), 0o755);
    const first = await startServer({ EMBEDDED_DATA_DIR: dataDir });
    expect(first.output()).toContain(`database: embedded PostgreSQL, data in ${dataDir}`);
    expect(first.output()).toContain('applied migrations: 0001_initial_schema');
    expect((await fetch(`${first.url}/hello`)).status).toBe(200);
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);

    const second = await startServer({ EMBEDDED_DATA_DIR: dataDir });
    expect(second.output()).not.toContain('applied migrations');
    expect((await fetch(`${second.url}/hello`)).status).toBe(200);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
  }, 60_000);
});
