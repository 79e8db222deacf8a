import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { performance } from 'node:perf_hooks';

export interface ServerProcess {
  name: string;
  pid: number;
  url: string;
  /** The application_name of its PostgreSQL connections (for CPU accounting). */
  applicationName: string;
  /** Spawn to the first 200 from GET /hello, in milliseconds. */
  startupMs: number;
  /** Resident set size now (VmRSS), in MB. */
  rssMb(): number;
  /** Highest resident set size since the process started (VmHWM), in MB. */
  peakRssMb(): number;
  /** The last lines the process wrote, for error messages. */
  outputTail(): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  name: string;
  script: string;
  args?: string[];
  nodeArgs?: string[];
  env: Record<string, string>;
  port: number;
  applicationName: string;
  readyTimeoutMs?: number;
}

const stopTimeoutMs = 15_000;
const outputTailBytes = 4096;

// The child gets a small, explicit environment so that settings exported in the developer's shell
// (POSTGRESQL_*, LOG_LEVEL, ...) cannot change what is measured; UV_THREADPOOL_SIZE is the one knob passed on.
function baseEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'LANG', 'TZ', 'UV_THREADPOOL_SIZE']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export async function startServer(options: StartOptions): Promise<ServerProcess> {
  const url = `http://127.0.0.1:${options.port}`;
  const started = performance.now();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.script, ...(options.args ?? [])], {
    env: { ...baseEnvironment(), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const keepTail = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-outputTailBytes);
  };
  child.stdout!.on('data', keepTail);
  child.stderr!.on('data', keepTail);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  try {
    await waitForHello(url, child, options.readyTimeoutMs ?? 30_000);
  } catch (error) {
    await terminate(child, exited);
    throw new Error(`${options.name} did not start: ${(error as Error).message}\n${tail}`, { cause: error });
  }
  const startupMs = performance.now() - started;
  const pid = child.pid!;
  return {
    name: options.name,
    pid,
    url,
    applicationName: options.applicationName,
    startupMs,
    rssMb: () => readStatusKb(pid, 'VmRSS') / 1024,
    peakRssMb: () => readStatusKb(pid, 'VmHWM') / 1024,
    outputTail: () => tail,
    stop: () => terminate(child, exited),
  };
}

async function waitForHello(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited with ${child.exitCode ?? child.signalCode}`);
    if ((await getStatus(`${url}/hello`)) === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`no 200 from /hello within ${timeoutMs} ms`);
}

/** One GET without keep-alive; 0 when the connection fails (not listening yet). */
export function getStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const request = http.get(url, { agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', () => resolve(0));
    request.setTimeout(5000, () => request.destroy());
  });
}

async function terminate(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
  await exited;
  clearTimeout(timer);
}

function readStatusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!match) throw new Error(`${field} missing from /proc/${pid}/status`);
  return Number(match[1]);
}
