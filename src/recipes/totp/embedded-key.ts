import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseTotpSecretKeys, type TotpSecretKey } from '../../config/totp-secret-keys.js';

const FILE_NAME = 'identity-core-totp-secret-keys';

/**
 * Zero configuration with the embedded database: the key that seals TOTP secrets lives in a file beside the data
 * (mode 0600), made on first start, so a dump of the database holds no readable secret. Several cores never share
 * an embedded database, so one file per data folder is one key per installation; an external database needs
 * `totp_secret_keys` set.
 */
export function embeddedTotpSecretKeys(dataDir: string): { keys: TotpSecretKey[]; created: boolean; file: string } {
  const file = path.join(dataDir, FILE_NAME);
  if (fs.existsSync(file)) return { keys: parseTotpSecretKeys(fs.readFileSync(file, 'utf8').trim()), created: false, file };
  const text = `local:${crypto.randomBytes(32).toString('base64')}`;
  fs.writeFileSync(file, `${text}\n`, { mode: 0o600, flag: 'wx' });
  return { keys: parseTotpSecretKeys(text), created: true, file };
}
