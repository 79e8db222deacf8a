import { decodeEitherBase64 } from '../base64.js';
import { ConfigError } from './config-error.js';

export interface TotpSecretKey {
  id: string;
  key: Buffer;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * `totp_secret_keys`: `<id>:<base64 of 32 bytes>`, comma-separated. The id is stored beside each secret so keys can
 * rotate: the last listed encrypts new secrets, every listed one decrypts. Refusals name the setting, never a key.
 */
export function parseTotpSecretKeys(text: string | undefined): TotpSecretKey[] {
  if (text === undefined || text.trim() === '') return [];
  const keys: TotpSecretKey[] = [];
  for (const [index, entry] of text.split(',').entries()) {
    const separator = entry.indexOf(':');
    const id = separator === -1 ? '' : entry.slice(0, separator).trim();
    const where = `'totp_secret_keys' entry ${index + 1}`;
    if (!KEY_ID.test(id)) throw new ConfigError(`${where} must be <id>:<base64 key>, the id 1 to 32 of A-Z a-z 0-9 _ -`);
    if (keys.some((key) => key.id === id)) throw new ConfigError(`${where}: the id ${id} is listed twice`);
    const key = decodeEitherBase64(entry.slice(separator + 1).trim());
    if (key?.length !== 32) throw new ConfigError(`${where} (${id}): the key must be 32 bytes in base64 (openssl rand -base64 32)`);
    keys.push({ id, key });
  }
  return keys;
}
