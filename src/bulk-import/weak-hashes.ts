import type { Logger } from 'pino';
import { weakFormatOf } from '../hashing/formats.js';
import type { JsonObject } from './fields.js';

/**
 * Users of an accepted batch whose email-password hash is in a weak format (plain or salted digest, HMAC,
 * md5-crypt, phpass, few PBKDF2 iterations). The answer gains `weakHashes` (absent when none, so the reference's
 * shape is unchanged) and the log a warning with the count per format, never a hash.
 */
export function countWeakHashes(users: readonly JsonObject[], log: Pick<Logger, 'warn'>): number {
  const formats: Record<string, number> = {};
  let count = 0;
  for (const user of users) {
    const weak = loginMethodsOf(user)
      .map(weakFormatOfMethod)
      .find((format) => format !== undefined);
    if (weak === undefined) continue;
    count++;
    formats[weak] = (formats[weak] ?? 0) + 1;
  }
  if (count > 0) {
    log.warn({ weakHashes: count, formats }, 'bulk import: users with a password hash in a weak format; turn on password_rehash_on_signin');
  }
  return count;
}

function loginMethodsOf(user: JsonObject): unknown[] {
  return Array.isArray(user.loginMethods) ? user.loginMethods : [];
}

function weakFormatOfMethod(method: unknown): string | undefined {
  if (typeof method !== 'object' || method === null) return undefined;
  const { recipeId, passwordHash, hashingAlgorithm } = method as Record<string, unknown>;
  if (recipeId !== 'emailpassword' || typeof passwordHash !== 'string') return undefined;
  return weakFormatOf(passwordHash, typeof hashingAlgorithm === 'string' ? hashingAlgorithm : undefined);
}
