import path from 'node:path';
import type { SourceRecord } from '../bulk-user.js';
import { CliError } from '../cli-error.js';
import { streamCsvRecords } from './csv-records.js';
import type { FileSource } from './file-source.js';
import { firebaseRecord, fromCsvRow, fromJsonUser, type FirebaseOptions } from './firebase-account.js';
import { JsonStreamError, streamJsonArray } from './json-array-stream.js';

export type FirebaseFormat = 'json' | 'csv';

export function firebaseFormat(file: string, explicit?: string): FirebaseFormat {
  const format = (explicit ?? path.extname(file).slice(1)).toLowerCase();
  if (format === 'json' || format === 'csv') return format;
  throw new CliError(`cannot tell whether ${file} is JSON or CSV: pass --format json or --format csv`);
}

export async function* readFirebase(source: FileSource, format: FirebaseFormat, options: FirebaseOptions): AsyncGenerator<SourceRecord> {
  let index = 0;
  if (format === 'json') {
    try {
      for await (const user of streamJsonArray(source.chunks(), 'users')) yield firebaseRecord(fromJsonUser(user), index++, options);
    } catch (error) {
      if (error instanceof JsonStreamError || error instanceof SyntaxError) {
        throw new CliError(`${source.path} is not an auth:export JSON file (${error.message})`);
      }
      throw error;
    }
    return;
  }
  let first = true;
  for await (const row of streamCsvRecords(source.chunks())) {
    // The exporter writes no header row; skip one if someone added it.
    if (first && row[0]?.trim().toUpperCase() === 'UID') {
      first = false;
      continue;
    }
    first = false;
    yield firebaseRecord(fromCsvRow(row), index++, options);
  }
}
