import { coreError } from '../../errors.js';

// The dashboard routes read their JSON fields one at a time, in the reference's order: a field that is not a string
// is "invalid in JSON input", a blank one "cannot be an empty String".

export function requiredText(body: Readonly<Record<string, unknown>>, field: string): string {
  const value = body[field];
  if (typeof value !== 'string') throw coreError('INVALID_FIELD', field);
  if (value.trim() === '') throw coreError('FIELD_EMPTY', field);
  return value;
}

/** Absent (or null) is undefined. */
export function optionalText(body: Readonly<Record<string, unknown>>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  return requiredText(body, field);
}
