import { spawn, type ChildProcess } from 'node:child_process';

// A core as production runs it (`node dist/server.js`; scripts/topology.sh builds dist/ when it is stale), on
// loopback, configured by environment variables only.
export interface CoreProcess {
  url: string;
  pid: number;
  /** True while the process that started is still the one running (never restarted). */
  running(): boolean;
  output(): string;
  stop(): Promise<void>;
}

export async function startCoreProcess(env: Record<string, string>): Promise<CoreProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['dist/server.js', '--port=0', '--host=127.0.0.1', '--config=test/fixtures/empty.yaml'],
    { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  // Request logs are dropped: only the start, warnings and errors are kept for a failure message.
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) {
      if (line && !line.includes('"msg":"incoming request"') && !line.includes('"msg":"request completed"')) output += `${line}\n`;
    }
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /Server listening at (http:\/\/[^"\s]+)/.exec(output);
      if (match) {
        clearInterval(timer);
        resolve(match[1]);
      }
    }, 20);
    void exited.then(() => {
      clearInterval(timer);
      reject(new Error(`core exited with ${child.exitCode ?? child.signalCode}: ${output.slice(-3000)}`));
    });
  });
  return {
    url,
    pid: child.pid!,
    running: () => child.exitCode === null && child.signalCode === null,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
      await exited;
    },
  };
}
