import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { databaseUrl } from '../../helper.js';

// The core as production runs it (`node dist/server.js`, built by `npm test`'s pretest), on a schema of its own.
export interface CoreProcess {
  child: ChildProcess;
  url: string;
  schema: string;
  output: () => string;
  exited: Promise<number | null>;
  post(path: string, body: object): Promise<{ status: number; headers: Headers; text: string }>;
  /** Resident set size of the process, from /proc. */
  rssMb(): number;
  /** Replaces a stored hash directly: hashes over the import bounds stand for ones imported when bounds were higher. */
  setStoredHash(email: string, hash: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startCore(env: Record<string, string>): Promise<CoreProcess> {
  const schema = `hostile_${crypto.randomBytes(5).toString('hex')}`;
  const child = spawn(process.execPath, ['dist/server.js', '--port=0', '--host=127.0.0.1', '--config=test/fixtures/empty.yaml'], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, POSTGRESQL_TABLE_SCHEMA: schema, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : null))));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /Server listening at (http:\/\/[^"\s]+)/.exec(output);
      if (match) {
        clearInterval(timer);
        resolve(match[1]);
      }
    }, 20);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`core exited with ${code}: ${output}`));
    });
  });
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  return {
    child,
    url,
    schema,
    output: () => output,
    exited,
    async post(path, body) {
      const response = await fetch(`${url}${path}`, { method: 'POST', body: JSON.stringify(body) });
      return { status: response.status, headers: response.headers, text: await response.text() };
    },
    rssMb() {
      const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
    },
    async setStoredHash(email, hash) {
      await pool.query(`UPDATE ${schema}.users SET password_hash = $1 WHERE email = $2`, [hash, email]);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited.catch(() => undefined);
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await pool.end();
    },
  };
}

const randomBase64 = (bytes: number, padded = true) => {
  const text = crypto.randomBytes(bytes).toString('base64');
  return padded ? text : text.replace(/=+$/, '');
};

// Well-formed hashes of the given cost; their digests are random, so no password matches and each verification
// does the full work.
export const costlyHash = {
  argon2: (memoryKb: number, iterations: number) =>
    `$argon2id$v=19$m=${memoryKb},t=${iterations},p=1$${randomBase64(16, false)}$${randomBase64(32, false)}`,
  scrypt: (memCost: number, rounds: number) => `$f_scrypt$${randomBase64(64)}$${randomBase64(8)}$m=${memCost}$r=${rounds}$s=Bw==`,
  bcrypt: (cost: number) => `$2b$${String(cost).padStart(2, '0')}$${randomBase64(40).replace(/[+=]/g, '.').slice(0, 53)}`,
};
