import path from 'node:path';
import type { SourceRecord } from '../bulk-user.js';
import { CliError } from '../cli-error.js';
import { assembleRecord } from './assemble.js';
import { CsvProblem, streamCsvRecords } from './csv-records.js';
import { MAX_RECORD_CHARS } from './record-limits.js';
import { CSV_COLUMN_COUNT } from './firebase-csv-layout.js';
import type { FileSource } from './file-source.js';
import { firebaseRecord, fromCsvRow, fromJsonUser, type FirebaseOptions } from './firebase-account.js';
import { plainFirebaseRecord } from './firebase-plain.js';
import { JsonStreamError, streamJsonArray, UnreadableElement } from './json-array-stream.js';

export type FirebaseFormat = 'json' | 'csv';

// Exports written before the newer providers had columns end after the custom claims (column 27).
const LEGACY_CSV_FIELDS = 28;

export function firebaseFormat(file: string, explicit?: string): FirebaseFormat {
  const format = (explicit ?? path.extname(file.replace(/\.gz$/i, '')).slice(1)).toLowerCase();
  if (format === 'json' || format === 'csv') return format;
  throw new CliError(`cannot tell whether ${file} is JSON or CSV: pass --format json or --format csv`);
}

export async function* readFirebase(source: FileSource, format: FirebaseFormat, options: FirebaseOptions): AsyncGenerator<SourceRecord> {
  let index = 0;
  if (format === 'json') {
    try {
      for await (const user of streamJsonArray(source.chunks(), 'users')) {
        yield user instanceof UnreadableElement
          ? assembleRecord({ index, candidates: [], invalidReason: `users[${index}] ${user.reason}` })
          : (plainFirebaseRecord(user, index, options) ?? firebaseRecord(fromJsonUser(user), index, options));
        index++;
      }
    } catch (error) {
      if (error instanceof JsonStreamError || error instanceof SyntaxError) {
        throw new CliError(`${source.path} is not an auth:export JSON file (${error.message})`);
      }
      throw error;
    }
    return;
  }
  let first = true;
  for await (const row of streamCsvRecords(source.chunks(), MAX_RECORD_CHARS, { backslashQuotes: true })) {
    if (row instanceof CsvProblem) {
      first = false;
      yield assembleRecord({ index: index++, candidates: [], invalidReason: row.reason });
      continue;
    }
    // The exporter writes no header row; skip one if someone added it.
    if (first && row[0]?.trim().toUpperCase() === 'UID') {
      first = false;
      continue;
    }
    first = false;
    yield row.length < LEGACY_CSV_FIELDS || row.length > CSV_COLUMN_COUNT + 1
      ? assembleRecord({
          index: index++,
          candidates: [],
          invalidReason: `has ${row.length} fields; the auth:export CSV layout has ${CSV_COLUMN_COUNT}`,
        })
      : firebaseRecord(fromCsvRow(row), index++, options);
  }
}
