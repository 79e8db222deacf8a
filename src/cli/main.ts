#!/usr/bin/env node
import { runCli } from './cli.js';

const controller = new AbortController();

// Ctrl-C, a service manager's stop (SIGTERM) and a closed terminal (SIGHUP) all end the run the same way: after
// the request in flight, with a partial report. The abort reason names the signal, for the exit code.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    // A second signal does not wait for the request in flight.
    if (controller.signal.aborted) process.exit(signal === 'SIGINT' ? 130 : 1);
    process.stderr.write(`\n${signal}: stopping after the request in flight (Ctrl-C again to quit now)...\n`);
    controller.abort(signal);
  });
}

// An error thrown outside the run's own calls (a stream's, say) stops the run the same way, so that it still reports.
for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
  process.on(event, (error: unknown) => {
    process.stderr.write(`identity-core: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
    if (controller.signal.aborted) process.exit(1);
    controller.abort('error');
  });
}

void runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  isTTY: process.stderr.isTTY === true,
  env: process.env,
  signal: controller.signal,
})
  .then(
    (code) => {
      process.exitCode = Math.max(Number(process.exitCode ?? 0), code);
    },
    (error: unknown) => {
      process.stderr.write(`identity-core: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  )
  .then(exitOnceWritten);

// The run is over and has written everything it writes: the process ends as soon as its output is out. Left to wind
// down by itself, Node would first wait for V8's background work and tear down the heap (at 20,000 users, 60-80 ms
// after the report was written, with nothing left to do).
function exitOnceWritten(): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit()));
}
