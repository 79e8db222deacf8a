import { CliError } from './cli-error.js';
import type { Results } from './results.js';

/** --max-invalid: a run (or dry run) stops, with its partial report, once more users than this are invalid. */
export function assertInvalidWithin(results: Results, maxInvalid: number): void {
  if (results.invalid <= maxInvalid) return;
  throw new CliError(
    `stopped: ${results.invalid} users are invalid, more than --max-invalid ${maxInvalid}; the report lists each with its record number and reason`,
  );
}
