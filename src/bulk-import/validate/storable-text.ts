import { errorMessage } from '../../errors.js';
import { isUnstorable } from '../../http/unstorable-text.js';

// The bulk routes take their bodies unchecked for text the database cannot store (app.ts), so that one user's bad
// value is that user's error, named by its path, instead of the whole batch's.

/** Adds one error naming the first value (or key) of the user that the database cannot store, if any. */
export function checkStorableText(input: unknown, errors: string[]): void {
  const problem = unstorableText(input);
  if (problem !== undefined) errors.push(problem);
}

/** The error naming the first value (or key) that the database cannot store; the migration command uses it too. */
export function unstorableText(input: unknown): string | undefined {
  // Nearly every user holds no such text: one walk that builds no paths tells, and only a user that does is walked again.
  if (!holdsUnstorable(input)) return undefined;
  const found = firstUnstorable(input, '');
  if (found === undefined) return undefined;
  const what = found.text.includes('\u0000') ? 'a NUL character (\\u0000)' : 'a lone surrogate (half of a UTF-16 pair)';
  return errorMessage('BULK_TEXT_UNSTORABLE', found.path === '' ? 'the user' : found.path, what);
}

function firstUnstorable(value: unknown, path: string): { path: string; text: string } | undefined {
  if (typeof value === 'string') return isUnstorable(value) ? { path, text: value } : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = firstUnstorable(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const at = path === '' ? key : `${path}.${key}`;
    if (isUnstorable(key)) return { path: `a key of ${path === '' ? 'the user' : path}`, text: key };
    const found = firstUnstorable(item, at);
    if (found) return found;
  }
  return undefined;
}

function holdsUnstorable(value: unknown): boolean {
  if (typeof value === 'string') return isUnstorable(value);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (holdsUnstorable(value[i])) return true;
    return false;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (isUnstorable(key) || holdsUnstorable((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}
