import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

// The core under test, as its own process (so its memory is measured apart from the load generator), started
// from the TypeScript sources with vite-node.

export interface CoreProcess {
  url: string;
  child: ChildProcess;
  peakRssMb(): number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export async function startCore(databaseUrl: string, schema: string, env: Record<string, string> = {}): Promise<CoreProcess> {
  const port = await freePort();
  // BENCH_CORE_NODE_OPTIONS, e.g. --cpu-prof, profiles the core.
  const nodeOptions = (process.env.BENCH_CORE_NODE_OPTIONS ?? '').split(' ').filter(Boolean);
  const child = spawn('node', [...nodeOptions, 'node_modules/vite-node/vite-node.mjs', 'src/server.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      POSTGRESQL_TABLE_SCHEMA: schema,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'WARN',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the core exited with ${child.exitCode} while starting`);
    try {
      if ((await fetch(`${url}/hello`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('the core did not start within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    child,
    // VmHWM: the resident-set high-water mark of the process since it started.
    peakRssMb() {
      const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
