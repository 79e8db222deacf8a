import { CliError } from './cli-error.js';
import type { CliIo } from './io.js';
import { runMigrate } from './migrate.js';
import { MIGRATE_USAGE, parseMigrateArgs } from './options.js';
import { parseUndoArgs, runUndo, UNDO_USAGE } from './undo.js';
import { LAZY_USAGE, parseLazyArgs, runLazy } from './lazy.js';

const USAGE = `Usage: identity-core <command>

Commands:
  migrate <source> <file> [options]   import users from another provider's export
  migrate undo <report> [options]     remove the users one migration run created
  lazy pending|canary|close-breaker   users still waiting for lazy migration; check one password; close a breaker

${MIGRATE_USAGE}`;

/** Runs one command line and returns the exit code; never exits the process itself. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    io.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  try {
    if (command === 'lazy') {
      if (rest.includes('-h') || rest.includes('--help')) {
        io.stdout.write(LAZY_USAGE);
        return 0;
      }
      return await runLazy(parseLazyArgs(rest, io.env), io, io.readStdin ?? readStdin);
    }
    if (command !== 'migrate') throw new CliError(`unknown command "${command}"\n\n${USAGE}`);
    const undo = rest[0] === 'undo';
    if (rest.includes('-h') || rest.includes('--help')) {
      io.stdout.write(undo ? UNDO_USAGE : MIGRATE_USAGE);
      return 0;
    }
    if (undo) return await runUndo(parseUndoArgs(rest.slice(1), io.env), io);
    return await runMigrate(parseMigrateArgs(rest, io.env), io);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    io.stderr.write(`\nidentity-core ${command}: ${error.message}\n`);
    return error.exitCode;
  }
}

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text.replace(/\r?\n$/, '');
}
