import type { SourceRecord } from '../bulk-user.js';
import { CliError } from '../cli-error.js';
import { assembleRecord } from './assemble.js';
import { auth0Record, type Auth0Options } from './auth0.js';
import { CsvProblem, streamCsvRecords } from './csv-records.js';
import type { FileSource } from './file-source.js';

// A column such as `identities[1].profileData.email` names a field of the user: name segments and array positions.
type PathStep = string | number;

// A user has a handful of identities; a column naming position 100000 must not build a huge array.
const MAX_ARRAY_INDEX = 99;
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const ISO_DATE = /^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:?\d{2})$/;
// The older exports guard only values a spreadsheet would run as a formula.
const FORMULA_GUARD = /^'(?=[=+\-@\t\r])/;

/** `csv` for `--format csv` or a name ending in .csv (or .csv.gz); otherwise the NDJSON the job writes by default. */
export function auth0Format(file: string, explicit?: string): 'csv' | 'ndjson' {
  if (explicit !== undefined) return explicit.toLowerCase() === 'csv' ? 'csv' : 'ndjson';
  return /\.csv(\.gz)?$/i.test(file) ? 'csv' : 'ndjson';
}

/**
 * The CSV of the user-export job: a header of the exported field names (`user_id`, `email`, `email_verified`,
 * `created_at`, `identities[0].provider`, `user_metadata.plan`, …), then one user per row. Each row is rebuilt into
 * the user object the NDJSON export holds, so both formats give the same users.
 */
export async function* readAuth0Csv(source: FileSource, options: Auth0Options): AsyncGenerator<SourceRecord> {
  let columns: (PathStep[] | undefined)[] | undefined;
  let index = 0;
  for await (const cells of streamCsvRecords(source.chunks())) {
    if (cells instanceof CsvProblem) {
      if (!columns) throw new CliError(`${source.path}: the header line cannot be read (${cells.reason})`);
      yield assembleRecord({ index: index++, candidates: [], invalidReason: cells.reason });
      continue;
    }
    if (!columns) {
      columns = cells.map((name, i) => parsePath(unguard(i === 0 ? name.replace(/^\uFEFF/, '') : name).trim()));
      if (!columns.some((path) => path?.[0] === 'user_id' || path?.[0] === 'email')) {
        throw new CliError(`${source.path}: the first line must be the export's header naming its fields (user_id, email, …)`);
      }
      continue;
    }
    // A row that does not line up with the header would put values under other fields: refuse it unshown.
    if (cells.length !== columns.length) {
      yield assembleRecord({
        index: index++,
        candidates: [],
        invalidReason: `has ${cells.length} fields; the header has ${columns.length}`,
      });
      continue;
    }
    yield auth0Record(userFromRow(columns, cells), index++, options);
  }
}

function userFromRow(columns: (PathStep[] | undefined)[], cells: string[]): Record<string, unknown> {
  const everyStringGuarded = cells.every((cell) => cell === '' || cell.startsWith("'") || isUnquotedLiteral(cell));
  const user: Record<string, unknown> = {};
  cells.forEach((cell, i) => {
    const path = columns[i];
    if (path === undefined || cell === '') return;
    const value = everyStringGuarded ? (cell.startsWith("'") ? cell.slice(1) : literal(cell)) : cell.replace(FORMULA_GUARD, '');
    if (value !== '') setPath(user, path, value);
  });
  return user;
}

// The current exports put a ' before every string (booleans, numbers and the export's own ISO dates go bare), so
// that a bare value is not a string; older ones guard only values starting with =, +, -, @, tab or CR.
function isUnquotedLiteral(cell: string): boolean {
  return cell === 'true' || cell === 'false' || cell === 'null' || ISO_DATE.test(cell) || /^-?\d+(\.\d+)?$/.test(cell);
}

function literal(cell: string): unknown {
  if (cell === 'true' || cell === 'false' || cell === 'null' || /^-?\d+(\.\d+)?$/.test(cell)) return JSON.parse(cell) as unknown;
  return cell;
}

function unguard(text: string): string {
  return text.startsWith("'") ? text.slice(1) : text;
}

/** The steps of a field name, or undefined for a name that cannot be a user field. */
function parsePath(name: string): PathStep[] | undefined {
  const steps: PathStep[] = [];
  for (const segment of name.split('.')) {
    const match = /^([^[\]]+)((?:\[\d+\])*)$/.exec(segment);
    if (!match || UNSAFE_KEYS.has(match[1])) return undefined;
    steps.push(match[1]);
    for (const position of match[2].matchAll(/\[(\d+)\]/g)) {
      const number = Number(position[1]);
      if (number > MAX_ARRAY_INDEX) return undefined;
      steps.push(number);
    }
  }
  return steps;
}

function setPath(target: Record<string, unknown>, path: PathStep[], value: unknown): void {
  let node: Record<string | number, unknown> = target;
  for (const [i, step] of path.entries()) {
    if (i === path.length - 1) {
      node[step] = value;
      return;
    }
    const next = node[step];
    const wanted = typeof path[i + 1] === 'number' ? 'array' : 'object';
    if (wanted === 'array' ? Array.isArray(next) : next !== null && typeof next === 'object' && !Array.isArray(next)) {
      node = next as Record<string | number, unknown>;
    } else {
      // A value already there under a shorter name (`identities` and `identities[0].provider`) gives way.
      const created = wanted === 'array' ? [] : {};
      node[step] = created;
      node = created as Record<string | number, unknown>;
    }
  }
}
