import { loadConfig } from './config/load.js';

// The container's HEALTHCHECK: asks this core's own /hello, on the port and base path the server reads from the
// same config file and environment. Exit code 0 = healthy (the database answered), 1 = not.
const timeoutMs = 2500;

async function main(): Promise<number> {
  const config = loadConfig({ argv: process.argv.slice(2), env: process.env });
  const anyInterface = config.host === '0.0.0.0' || config.host === '::' || config.host === '';
  const host = anyInterface ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
  const response = await fetch(`http://${host}:${config.port}${config.base_path}/hello`, { signal: AbortSignal.timeout(timeoutMs) });
  return response.status === 200 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`identity-core healthcheck: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
