import { parseArgs } from 'node:util';
import { emptyLookup } from './account-keys.js';
import { CliError } from './cli-error.js';
import { apiKeyFrom, DEFAULT_CORE_URL } from './connection.js';
import { CoreClient } from './core-client.js';
import type { CliIo } from './io.js';
import { ReportReader } from './report-reader.js';
import type { CreatedUser } from './results.js';
import { forgetRun, usersToUndo } from './undo-list.js';
import { removeTenantIfEmpty } from './organizations/tenants.js';

export const UNDO_USAGE = `Usage: identity-core migrate undo <report> [options]

Removes from the core exactly the users a migration run created, as listed in its report (or, for a run that
was killed before it wrote its end, as its side files next to the export say it sent); users that were in the
core before the run are never touched. Afterwards the same migrate command imports again from the start.

Options:
  --dry-run          say what would be removed; remove nothing
  --core-url <url>   the core the run imported into (default: the one the report names; another is refused)
  --api-key <key>    one of the core's api_keys (default: env IDENTITY_CORE_API_KEY)
  -h, --help         this text
`;

// Lookups take up to this many ids per request; removals run this many at a time; a dry run lists this many users.
const LOOKUP_CHUNK = 10_000;
const REMOVE_CONCURRENCY = 8;
const LISTED = 1000;

interface UndoOptions {
  reportPath: string;
  dryRun: boolean;
  coreUrl?: string;
  apiKey?: string;
}

export function parseUndoArgs(argv: string[], env: Readonly<Record<string, string | undefined>>): UndoOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { 'dry-run': { type: 'boolean' }, 'core-url': { type: 'string' }, 'api-key': { type: 'string' } },
    });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${UNDO_USAGE}`);
  }
  const [reportPath, ...extra] = parsed.positionals;
  if (reportPath === undefined || extra.length > 0) throw new CliError(`expected the report of the run to undo\n\n${UNDO_USAGE}`);
  return {
    reportPath,
    dryRun: parsed.values['dry-run'] ?? false,
    coreUrl: parsed.values['core-url'],
    apiKey: apiKeyFrom(parsed.values['api-key'], env),
  };
}

export async function runUndo(options: UndoOptions, io: CliIo): Promise<number> {
  const report = new ReportReader(options.reportPath);
  if (!report.running) await report.check();
  const coreUrl = options.coreUrl ?? report.coreUrl ?? DEFAULT_CORE_URL;
  const client = new CoreClient({ baseUrl: coreUrl, apiKey: options.apiKey, signal: io.signal });
  await client.checkConnection();
  const coreId = (await client.coreIdentity()) ?? `core at ${coreUrl}`;
  if (coreId !== report.coreId) {
    throw new CliError(
      `${options.reportPath} was written for core ${report.coreId}, but the core at ${coreUrl} is ${coreId}: undo removes users only from the core the run imported into (--core-url)`,
    );
  }
  if (report.running) {
    io.stderr.write(`${options.reportPath} is the report of a run that did not write its end: undoing what its side files say it sent\n`);
  }
  // A chunk of the list at a time, so that undoing a million-user run holds no more than one chunk.
  let present = 0;
  let gone = 0;
  const listed: string[] = [];
  const left: CreatedUser[] = [];
  for await (const chunk of usersToUndo(report, client, LOOKUP_CHUNK)) {
    const held = await stillHeld(client, chunk);
    present += held.length;
    gone += chunk.length - held.length;
    if (options.dryRun) {
      for (const user of held.slice(0, LISTED - listed.length)) listed.push(`  would remove ${user.user} (record ${user.record})`);
      continue;
    }
    for (let start = 0; start < held.length; start += REMOVE_CONCURRENCY) {
      await Promise.all(held.slice(start, start + REMOVE_CONCURRENCY).map((user) => client.removeUser(user.userId)));
    }
    left.push(...(await stillHeld(client, held)));
  }
  const lines = [`Undo of ${options.reportPath} in ${coreUrl}${options.dryRun ? ' (dry run)' : ''}`];
  if (options.dryRun) {
    lines.push(`  would remove        ${present}`, `  no longer in core   ${gone}`, ...listed);
    for (const tenant of report.tenantsCreated) lines.push(`  would remove tenant ${tenant} once empty`);
    io.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  }
  lines.push(`  removed             ${present - left.length}`, `  no longer in core   ${gone}`);
  for (const user of left) lines.push(`  still in the core: ${user.user} (record ${user.record})`);
  // The run's tenants go once its users are gone, each only if no user was added to it since.
  if (left.length === 0) {
    for (const tenant of report.tenantsCreated) {
      const outcome = await removeTenantIfEmpty(client, tenant);
      lines.push(
        `  tenant ${tenant}: ${outcome === 'removed' ? 'removed' : outcome === 'gone' ? 'no longer in core' : 'kept: users were added to it after the run'}`,
      );
    }
  }
  if (left.length === 0) forgetRun(report.progress);
  io.stdout.write(`${lines.join('\n')}\n`);
  return left.length === 0 ? 0 : 1;
}

async function stillHeld(client: CoreClient, users: CreatedUser[]): Promise<CreatedUser[]> {
  const held = new Set<string>();
  const body = { ...emptyLookup(), userIds: users.map((user) => user.userId) };
  for (const user of await client.lookup(body)) held.add(user.userId);
  return users.filter((user) => held.has(user.userId));
}
