import { coreError } from '../errors.js';
import { isUnstorable } from './unstorable-text.js';

// Query strings keep the first value of a repeated parameter (contract §1.7). A parameter holding a NUL can match
// nothing stored and would fail the database call, so it counts as not given (see unstorable-text.ts).
export function parseQueryString(text: string): Record<string, string> {
  const values: Record<string, string> = Object.create(null);
  for (const [name, value] of new URLSearchParams(text)) {
    if (!(name in values) && !isUnstorable(name) && !isUnstorable(value)) values[name] = value;
  }
  return values;
}

export function requiredQuery(query: Record<string, string | undefined>, name: string): string {
  const value = query[name];
  if (value === undefined) throw coreError('MISSING_QUERY_FIELD', name);
  return value;
}

export function integerQuery(query: Record<string, string | undefined>, name: string): number | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (!/^[+-]?[0-9]+$/.test(trimmed) || !Number.isSafeInteger(Number(trimmed))) throw coreError('QUERY_FIELD_NOT_INT', name);
  return Number(trimmed);
}
