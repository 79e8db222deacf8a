// The SQL forms of the `$lazy$` pointer of `hashing/lazy-pointer.ts`: every statement that asks whether a password
// column holds a pointer, or reads a part of one, takes its text from here. The literal stays in the statement (not a
// parameter) so that the partial index `users__lazy_source_idx` of migration 0010 (`WHERE password_hash LIKE
// '$lazy$%'`, on `split_part(password_hash, '$', 3)`) serves it.
import { LAZY_PREFIX } from '../hashing/lazy-pointer.js';

/** A LIKE pattern matching every pointer, for statements that bind it as a parameter. */
export const lazyPointerPattern = `${LAZY_PREFIX}%`;

/** True when the column holds a pointer. */
export function isLazyPointerSql(column: string): string {
  return `${column} LIKE '${lazyPointerPattern}'`;
}

/** The pointer's source (its third `$`-separated field; the index expression). */
export function lazySourceSql(column: string): string {
  return `split_part(${column}, '$', 3)`;
}

/** The legacy user id, base64url as the pointer holds it (its fifth field). */
export function lazyLegacyUserIdSql(column: string): string {
  return `split_part(${column}, '$', 5)`;
}
