import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, portOpen } from './ports.js';

// A PgBouncer on loopback in front of one PostgreSQL, from Debian's package. It refuses to run as root, so a root
// run hands it to the postgres user.
export interface PgBouncer {
  port: number;
  /** The URL a core uses through this PgBouncer. */
  url: string;
  /** Rewrites the settings of the database entry and reloads (as an operator switching the backend would). */
  reconfigure(databaseEntry: string): Promise<void>;
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** The server behind it, a postgresql:// URL. */
  serverUrl: string;
  poolMode: 'session' | 'transaction';
  /** Extra `key=value` pairs of the database entry (connect_query=...). */
  databaseExtra?: string;
  poolSize?: number;
}

export const pgbouncerBinary = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((file) => fs.existsSync(file));

async function waitForPort(port: number, child: ChildProcess, log: string): Promise<void> {
  for (let tries = 0; tries < 100; tries++) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited: ${fs.readFileSync(log, 'utf8').slice(-2000)}`);
    if (await portOpen(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('pgbouncer did not listen within 10 s');
}

export async function startPgBouncer(options: PgBouncerOptions): Promise<PgBouncer> {
  if (!pgbouncerBinary) throw new Error('pgbouncer is not installed');
  const server = new URL(options.serverUrl);
  const database = server.pathname.slice(1) || 'postgres';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'identity-core-pgbouncer-'));
  fs.chmodSync(dir, 0o777);
  const port = await freePort();
  const ini = path.join(dir, 'pgbouncer.ini');
  const log = path.join(dir, 'pgbouncer.log');
  const entry = (extra: string) =>
    `${database} = host=${server.hostname} port=${server.port || 5432} dbname=${database} user=${decodeURIComponent(server.username || 'postgres')} ${extra}`;
  const write = (extra: string) =>
    fs.writeFileSync(
      ini,
      [
        '[databases]',
        entry(extra),
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        "unix_socket_dir = ''",
        'auth_type = any',
        `pool_mode = ${options.poolMode}`,
        'max_client_conn = 1000',
        `default_pool_size = ${options.poolSize ?? 20}`,
        `logfile = ${log}`,
        `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
        // Long enough for any test; a client of a saturated pooler is answered with an error after it.
        'query_wait_timeout = 10',
        'server_login_retry = 1',
        '',
      ].join('\n'),
    );
  write(options.databaseExtra ?? '');
  fs.writeFileSync(log, '');
  fs.chmodSync(log, 0o666);
  fs.chmodSync(ini, 0o644);
  const asRoot = process.getuid?.() === 0;
  const child = spawn(pgbouncerBinary, [...(asRoot ? ['-u', 'postgres'] : []), ini], { stdio: 'ignore' });
  await waitForPort(port, child, log);
  return {
    port,
    url: `postgresql://${server.username || 'postgres'}@127.0.0.1:${port}/${database}`,
    async reconfigure(extra) {
      write(extra);
      child.kill('SIGHUP');
      await new Promise((resolve) => setTimeout(resolve, 300));
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGINT');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
