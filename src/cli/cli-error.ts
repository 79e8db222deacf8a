/** A problem that stops the whole run (bad option, unreadable file, failed canary); exit code 2. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
  }
}
