import type pg from 'pg';
import type { Logger } from 'pino';
import type { TotpSecretKey } from '../../config/totp-secret-keys.js';
import { isDatabaseUnavailable } from '../../db/pg-errors.js';
import { withTransaction } from '../../db/transaction.js';
import { TotpSecretBox } from '../../keys/secret-box.js';

export class TotpSecretKeysError extends Error {}

const SETTING = "'totp_secret_keys' (TOTP_SECRET_KEYS or TOTP_SECRET_KEYS_FILE)";

/**
 * Run once at start, before any request. Refuses to start when devices exist that the configured keys cannot open
 * (no key at all, or a key id no longer listed); with keys, seals the secrets still stored in clear (written before
 * migration 0032) under the newest key, in one transaction. With no key and no devices the core starts, and
 * creating a device answers that the setting is missing (server.ts gives the embedded database a key of its own).
 */
export async function prepareTotpSecrets(pool: pg.Pool, keys: readonly TotpSecretKey[], log: Logger): Promise<TotpSecretBox> {
  const box = new TotpSecretBox(keys);
  const counted = await pool
    .query<{ key_id: string | null; devices: number }>(
      'SELECT secret_key_id AS key_id, count(*)::int AS devices FROM totp_devices GROUP BY secret_key_id',
    )
    .catch((error: unknown) => {
      // An app built while no primary can serve (the server itself migrates first, so it never starts this way):
      // requests answer 503 until one can, and the core that reaches it checks the secrets.
      if (!isDatabaseUnavailable(error)) throw error;
      log.warn('TOTP secrets not checked at start: the database is unavailable');
      return undefined;
    });
  if (counted === undefined) return box;
  const { rows } = counted;
  const total = rows.reduce((sum, row) => sum + row.devices, 0);
  if (total > 0 && !box.configured) {
    throw new TotpSecretKeysError(`${total} TOTP devices exist but ${SETTING} is not set: set it to the key their secrets need`);
  }
  const unknown = rows.filter((row) => row.key_id !== null && !box.has(row.key_id)).map((row) => row.key_id);
  if (unknown.length > 0) {
    throw new TotpSecretKeysError(`TOTP secrets are sealed with key ${unknown.join(', ')}, which ${SETTING} does not list`);
  }
  const clear = rows.find((row) => row.key_id === null)?.devices ?? 0;
  if (clear > 0) {
    await withTransaction(pool, async (client) => {
      const found = await client.query<{ user_id: string; device_name: string; secret_key: string }>(
        'SELECT user_id, device_name, secret_key FROM totp_devices WHERE secret_key_id IS NULL FOR UPDATE',
      );
      const sealed = found.rows.map((row) => box.seal(row.user_id, row.secret_key));
      await client.query(
        `UPDATE totp_devices d SET secret_key = s.secret_key, secret_key_id = s.key_id
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS s(user_id, device_name, secret_key, key_id)
          WHERE d.user_id = s.user_id AND d.device_name = s.device_name`,
        [
          found.rows.map((row) => row.user_id),
          found.rows.map((row) => row.device_name),
          sealed.map((secret) => secret.secretKey),
          sealed.map((secret) => secret.secretKeyId),
        ],
      );
    });
    log.info(`sealed ${clear} TOTP secrets stored in clear under key ${keys.at(-1)!.id}`);
  }
  return box;
}
