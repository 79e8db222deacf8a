/**
 * SHA-crypt hashes the password once per round and Drupal refuses passwords over 512 bytes, so the legacy
 * verifiers never look at a candidate password over this many UTF-8 bytes: it cannot match.
 */
export const LEGACY_PASSWORD_MAX_BYTES = 1024;

/** The UTF-8 bytes of a candidate password, or undefined when it is too long to have been hashed by these formats. */
export function legacyPasswordBytes(password: string): Buffer | undefined {
  const bytes = Buffer.from(password, 'utf8');
  return bytes.length <= LEGACY_PASSWORD_MAX_BYTES ? bytes : undefined;
}
