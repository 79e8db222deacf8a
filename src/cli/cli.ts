import { CliError } from './cli-error.js';
import type { CliIo } from './io.js';
import { runMigrate } from './migrate.js';
import { MIGRATE_USAGE, parseMigrateArgs } from './options.js';

const USAGE = `Usage: identity-core <command>

Commands:
  migrate <source> <file> [options]   import users from another provider's export

${MIGRATE_USAGE}`;

/** Runs one command line and returns the exit code; never exits the process itself. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    io.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  try {
    if (command !== 'migrate') throw new CliError(`unknown command "${command}"\n\n${USAGE}`);
    if (rest.includes('-h') || rest.includes('--help')) {
      io.stdout.write(MIGRATE_USAGE);
      return 0;
    }
    return await runMigrate(parseMigrateArgs(rest, io.env), io);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    io.stderr.write(`\nidentity-core ${command}: ${error.message}\n`);
    return error.exitCode;
  }
}
