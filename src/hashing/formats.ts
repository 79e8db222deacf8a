import { argon2Format } from './argon2.js';
import { aspnetIdentityFormat } from './aspnet-identity.js';
import { bcryptFormat } from './bcrypt.js';
import { bcryptSha256Format } from './bcrypt-sha256.js';
import { cryptFormat } from './crypt.js';
import type { HashFormat } from './format.js';
import { hmacFormat } from './hmac.js';
import { idpScryptFormat } from './idp-scrypt.js';
import { lazyPointerFormat } from './lazy-pointer.js';
import { ldapFormat } from './ldap.js';
import { pbkdf2Format } from './pbkdf2.js';
import { phpassFormat } from './phpass.js';
import { saltedDigestFormat } from './salted-digest.js';
import { scryptFormat } from './scrypt.js';
import { javaTrim } from '../normalise/java-trim.js';

/**
 * Every supported format, in detection order (§6.6): the first whose prefix matches a stored hash verifies it.
 * Adding a format is one file and one line here.
 */
export const HASH_FORMATS: ReadonlyArray<HashFormat<unknown>> = [
  argon2Format,
  bcryptFormat,
  idpScryptFormat,
  cryptFormat,
  phpassFormat,
  ldapFormat,
  saltedDigestFormat,
  hmacFormat,
  pbkdf2Format,
  scryptFormat,
  aspnetIdentityFormat,
  bcryptSha256Format,
  lazyPointerFormat,
] as ReadonlyArray<HashFormat<unknown>>;

const BY_NAME: ReadonlyMap<string, HashFormat<unknown>> = new Map(
  HASH_FORMATS.flatMap((format) => [format.id, ...format.aliases].map((name) => [name, format] as const)),
);

/** Every accepted `hashingAlgorithm` value, upper case, in list order. */
export const HASHING_ALGORITHM_NAMES: readonly string[] = [...BY_NAME.keys()];

/** `hashingAlgorithm` as §6.1 step 5 reads it: trimmed, case-insensitive; undefined when it names no format. */
export function findFormatByName(name: string): HashFormat<unknown> | undefined {
  return BY_NAME.get(javaTrim(name).toUpperCase());
}

export function detectFormat(hash: string): HashFormat<unknown> | undefined {
  return HASH_FORMATS.find((format) => format.hasPrefix(hash));
}

/** Whether a valid hash is in a format that is fast to guess, so reports can advise `password_rehash_on_signin`. */
export function isWeakHash(hash: string): boolean {
  return weakFormatOf(hash) !== undefined;
}

/**
 * The id of the format a valid imported hash is in, when that format is fast to guess; undefined otherwise. Reads
 * the hash as an import does: the named `hashingAlgorithm` (with its export form) or the detected prefix.
 */
export function weakFormatOf(passwordHash: string, hashingAlgorithm?: string): string | undefined {
  const hash = javaTrim(passwordHash);
  const format = hashingAlgorithm === undefined ? detectFormat(hash) : findFormatByName(hashingAlgorithm);
  if (!format?.isWeak) return undefined;
  const stored = format.hasPrefix(hash) || !format.fromExport ? hash : format.fromExport(hash);
  const parsed = format.parse(stored);
  return parsed.ok && format.isWeak(parsed.value) ? format.id : undefined;
}
