import { parseArgs } from 'node:util';
import { CliError } from './cli-error.js';
import { apiKeyFrom, coreUrlFrom } from './connection.js';
import { CoreClient } from './core-client.js';
import type { CliIo } from './io.js';

export const LAZY_USAGE = `Usage: identity-core lazy <pending|canary|close-breaker> [options]

  lazy pending --source <name> [--format ndjson|csv]
      every user still waiting for a first sign-in through <name>, for a reset campaign
      (userId, externalUserId, email, legacyLogin, legacyUserId, timeJoined)
  lazy canary --source <name> --login <login>
      asks the source whether the password on standard input is right, stores nothing
      (the core needs lazy_migration.allow_canary: true)
  lazy close-breaker --source <name>
      lets the core call <name> again at once after its breaker opened (each core instance keeps its
      own breaker: send it to every instance, or through the load balancer once per instance)

Options:
  --core-url <url>   core to ask (default: env IDENTITY_CORE_URL, else http://localhost:3567)
  --api-key <key>    one of the core's api_keys (default: env IDENTITY_CORE_API_KEY)
`;

interface LazyOptions {
  command: 'pending' | 'canary' | 'close-breaker';
  source: string;
  login?: string;
  format: 'ndjson' | 'csv';
  client: CoreClient;
}

export function parseLazyArgs(argv: string[], env: Readonly<Record<string, string | undefined>>): LazyOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        source: { type: 'string' },
        login: { type: 'string' },
        format: { type: 'string' },
        'core-url': { type: 'string' },
        'api-key': { type: 'string' },
      },
    });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${LAZY_USAGE}`);
  }
  const { values, positionals } = parsed;
  const [command, ...extra] = positionals;
  if ((command !== 'pending' && command !== 'canary' && command !== 'close-breaker') || extra.length > 0)
    throw new CliError(`expected pending, canary or close-breaker\n\n${LAZY_USAGE}`);
  if (values.source === undefined) throw new CliError('--source <name> is required');
  if (command === 'canary' && values.login === undefined) throw new CliError('--login <login> is required');
  const format = values.format ?? 'ndjson';
  if (format !== 'ndjson' && format !== 'csv') throw new CliError('--format must be ndjson or csv');
  const client = new CoreClient({
    baseUrl: coreUrlFrom(values['core-url'], env),
    apiKey: apiKeyFrom(values['api-key'], env),
  });
  return { command, source: values.source, login: values.login, format, client };
}

const COLUMNS = ['userId', 'externalUserId', 'email', 'legacyLogin', 'legacyUserId', 'timeJoined'] as const;

export async function runLazy(options: LazyOptions, io: CliIo, readPassword: () => Promise<string>): Promise<number> {
  if (options.command === 'canary') return canary(options, io, readPassword);
  if (options.command === 'close-breaker') return closeBreaker(options, io);
  if (options.format === 'csv') io.stdout.write(`${COLUMNS.join(',')}\n`);
  let token: string | undefined;
  let count = 0;
  do {
    const reply = await options.client.send('GET', '/lazy-migration/pending', {
      query: { source: options.source, limit: '1000', ...(token !== undefined && { paginationToken: token }) },
    });
    if (reply.status !== 200)
      throw new CliError(`GET /lazy-migration/pending answered ${reply.status}: ${reply.text.trim().slice(0, 300)}`);
    const page = reply.json as { users: Record<(typeof COLUMNS)[number], unknown>[]; nextPaginationToken?: string };
    for (const user of page.users) {
      io.stdout.write(
        options.format === 'csv' ? `${COLUMNS.map((column) => csvCell(user[column])).join(',')}\n` : `${JSON.stringify(user)}\n`,
      );
    }
    count += page.users.length;
    token = page.nextPaginationToken;
  } while (token !== undefined);
  io.stderr.write(`${count} users pending for source ${options.source}\n`);
  return 0;
}

async function canary(options: LazyOptions, io: CliIo, readPassword: () => Promise<string>): Promise<number> {
  const password = await readPassword();
  if (password === '') throw new CliError('no password on standard input');
  const reply = await options.client.send('POST', '/lazy-migration/verify', {
    body: { source: options.source, login: options.login, password },
  });
  if (reply.status === 404) throw new CliError('the core does not answer canaries: set lazy_migration.allow_canary: true on it');
  if (reply.status !== 200) throw new CliError(`POST /lazy-migration/verify answered ${reply.status}: ${reply.text.trim().slice(0, 300)}`);
  const outcome = String((reply.json as { outcome?: unknown }).outcome);
  io.stdout.write(`${options.source}: ${outcome}\n`);
  return outcome === 'MATCH' ? 0 : 1;
}

async function closeBreaker(options: LazyOptions, io: CliIo): Promise<number> {
  const reply = await options.client.send('POST', '/lazy-migration/breaker/close', { body: { source: options.source } });
  if (reply.status !== 200)
    throw new CliError(`POST /lazy-migration/breaker/close answered ${reply.status}: ${reply.text.trim().slice(0, 300)}`);
  const previous = String((reply.json as { previous?: unknown }).previous);
  io.stdout.write(`${options.source}: breaker closed (it was ${previous})\n`);
  return 0;
}

// Cells a spreadsheet would run as a formula get a leading quote.
function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  const safe = /^[=+\-@]/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
