#!/usr/bin/env node
import { runCli } from './cli.js';

const controller = new AbortController();
process.on('SIGINT', () => {
  // A second Ctrl-C does not wait for the request in flight.
  if (controller.signal.aborted) process.exit(130);
  process.stderr.write('\nstopping after the request in flight (Ctrl-C again to quit now)...\n');
  controller.abort();
});

runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  isTTY: process.stderr.isTTY === true,
  env: process.env,
  signal: controller.signal,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`identity-core: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
