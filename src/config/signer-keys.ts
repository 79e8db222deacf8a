import { decodeEitherBase64 } from '../base64.js';

// A name goes into each hash as `$k=<name>`: short, and nothing that could be read as another part of it.
const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * `idp_password_hashing_signer_keys`: comma-separated `<name>:<base64 key>`, one per exporting project or tenant
 * (each Identity Platform tenant signs with a key of its own). Returns the keys by name, or why the value is refused.
 */
export function parseNamedSignerKeys(value: string | undefined): Map<string, Buffer> | string {
  const keys = new Map<string, Buffer>();
  if (value === undefined || value.trim() === '') return keys;
  for (const entry of value.split(',')) {
    const separator = entry.indexOf(':');
    const name = entry.slice(0, separator).trim();
    if (separator === -1 || !NAME.test(name))
      return 'takes <name>:<base64 key>, comma-separated; a name is 1 to 64 of A-Z, a-z, 0-9, _ and -';
    if (keys.has(name)) return `names ${name} twice`;
    const key = decodeEitherBase64(entry.slice(separator + 1).trim());
    if (key === undefined || key.length === 0) return `has a key for ${name} that is not valid base64`;
    keys.set(name, key);
  }
  return keys;
}
