import type { Queryable } from '../../db/pool.js';
import type { TotpAlgorithm } from './code.js';
import { coreError } from '../../errors.js';
import type { TotpSecretBox } from '../../keys/secret-box.js';

export interface DeviceRow {
  device_name: string;
  secret_key: string;
  period: number;
  skew: number;
  verified: boolean;
  created_at: number;
  algorithm: TotpAlgorithm;
  digits: number;
  last_used_time_step: number | null;
}

export interface NewDevice {
  userId: string;
  deviceName: string;
  secretKey: string;
  period: number;
  skew: number;
  verified: boolean;
  createdAt: number;
  algorithm: TotpAlgorithm;
  digits: number;
  lastUsedTimeStep: number | null;
}

export interface LedgerRow {
  is_valid: boolean;
  created_time: number;
}

/** Serialises every change and check of one user's TOTP state until the transaction ends (M-5.3 [PROPOSAL]). */
export async function lockTotpUser(db: Queryable, userId: string): Promise<void> {
  await db.query(`SELECT pg_advisory_xact_lock(hashtextextended('totp:' || $1, 0))`, [userId]);
}

/** The user's devices with their secrets opened (base32); a secret no configured key opens is a configuration error. */
export async function findDevices(db: Queryable, box: TotpSecretBox, userId: string): Promise<DeviceRow[]> {
  const { rows } = await db.query<DeviceRow & { secret_key_id: string | null }>(
    `SELECT device_name, secret_key, secret_key_id, period, skew, verified, created_at, algorithm, digits, last_used_time_step
       FROM totp_devices WHERE user_id = $1 ORDER BY created_at, device_name`,
    [userId],
  );
  return rows.map(({ secret_key_id: secretKeyId, ...row }) => {
    const secret = box.open(userId, { secretKey: row.secret_key, secretKeyId });
    if (secret === undefined) throw coreError('TOTP_SECRET_KEYS_MISSING');
    return { ...row, secret_key: secret };
  });
}

/**
 * Inserts or overwrites devices, one statement for any number (bulk import and the create/import routes). The one
 * place a secret is written, sealed under the newest configured key.
 */
export async function upsertDevices(db: Queryable, box: TotpSecretBox, devices: NewDevice[]): Promise<void> {
  if (devices.length === 0) return;
  const column = <K extends keyof NewDevice>(key: K) => devices.map((device) => device[key]);
  const sealed = devices.map((device) => box.seal(device.userId, device.secretKey));
  await db.query(
    `INSERT INTO totp_devices (user_id, device_name, secret_key, period, skew, verified, created_at, algorithm, digits, last_used_time_step, secret_key_id)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::int[], $6::boolean[], $7::bigint[], $8::text[], $9::int[], $10::bigint[], $11::text[])
     ON CONFLICT (user_id, device_name) DO UPDATE SET
       secret_key = EXCLUDED.secret_key, period = EXCLUDED.period, skew = EXCLUDED.skew, verified = EXCLUDED.verified,
       created_at = EXCLUDED.created_at, algorithm = EXCLUDED.algorithm, digits = EXCLUDED.digits,
       last_used_time_step = EXCLUDED.last_used_time_step, secret_key_id = EXCLUDED.secret_key_id`,
    [
      column('userId'),
      column('deviceName'),
      sealed.map((secret) => secret.secretKey),
      column('period'),
      column('skew'),
      column('verified'),
      column('createdAt'),
      column('algorithm'),
      column('digits'),
      column('lastUsedTimeStep'),
      sealed.map((secret) => secret.secretKeyId),
    ],
  );
}

export async function renameDevice(db: Queryable, userId: string, from: string, to: string): Promise<void> {
  await db.query('UPDATE totp_devices SET device_name = $3 WHERE user_id = $1 AND device_name = $2', [userId, from, to]);
}

export async function markDeviceVerified(db: Queryable, userId: string, deviceName: string): Promise<void> {
  await db.query('UPDATE totp_devices SET verified = true WHERE user_id = $1 AND device_name = $2', [userId, deviceName]);
}

/** Removes a device; with the user's last one the used-code ledger goes too (the TOTP user is gone, M-5.1). */
export async function deleteDevice(db: Queryable, userId: string, deviceName: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM totp_devices WHERE user_id = $1 AND device_name = $2', [userId, deviceName]);
  await db.query('DELETE FROM totp_used_codes WHERE user_id = $1 AND NOT EXISTS (SELECT 1 FROM totp_devices WHERE user_id = $1)', [userId]);
  return (rowCount ?? 0) > 0;
}

/** The newest `limit` ledger rows of (tenant, user), newest first. */
export async function findRecentCodes(db: Queryable, tenantId: string, userId: string, limit: number): Promise<LedgerRow[]> {
  const { rows } = await db.query<LedgerRow>(
    `SELECT is_valid, created_time FROM totp_used_codes WHERE tenant_id = $1 AND user_id = $2
      ORDER BY created_time DESC, id DESC LIMIT $3`,
    [tenantId, userId, limit],
  );
  return rows;
}

/** Whether `code` was accepted for (tenant, user) and is still within its lifetime: using it again is a replay. */
export async function isCodeSpent(db: Queryable, tenantId: string, userId: string, code: string, now: number): Promise<boolean> {
  const { rowCount } = await db.query(
    'SELECT 1 FROM totp_used_codes WHERE tenant_id = $1 AND user_id = $2 AND code = $3 AND is_valid AND expiry_time > $4 LIMIT 1',
    [tenantId, userId, code, now],
  );
  return (rowCount ?? 0) > 0;
}

/** Appends an attempt to the ledger; its id lets a recovery-code attempt, recorded as failed, be turned valid. */
export async function insertUsedCode(
  db: Queryable,
  row: { tenantId: string; userId: string; code: string; isValid: boolean; expiryTime: number; createdTime: number },
): Promise<number> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO totp_used_codes (tenant_id, user_id, code, is_valid, expiry_time, created_time) VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING id`,
    [row.tenantId, row.userId, row.code, row.isValid, row.expiryTime, row.createdTime],
  );
  return Number(rows[0].id);
}

export async function markAttemptValid(db: Queryable, id: number): Promise<void> {
  await db.query('UPDATE totp_used_codes SET is_valid = true WHERE id = $1', [id]);
}

/** Ledger rows past their lifetime and past the cooldown (a lockout always lasts its full cooldown, M-5.6). */
export async function deleteExpiredCodes(db: Queryable, before: number): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM totp_used_codes WHERE expiry_time < $1', [before]);
  return rowCount ?? 0;
}

/** Whether each id has a verified device (true), only unverified ones (false), or none (null); input order. */
export async function findVerifiedStatus(db: Queryable, userIds: string[]): Promise<(boolean | null)[]> {
  const { rows } = await db.query<{ verified: boolean | null }>(
    `SELECT (SELECT bool_or(d.verified) FROM totp_devices d WHERE d.user_id = k.user_id) AS verified
       FROM unnest($1::text[]) WITH ORDINALITY AS k(user_id, ord) ORDER BY k.ord`,
    [userIds],
  );
  return rows.map((row) => row.verified);
}

/** The TOTP ledger of a user in one tenant goes (the user left it). */
export async function deleteCodesOfUserInTenant(db: Queryable, tenantId: string, userIds: string[]): Promise<void> {
  await db.query('DELETE FROM totp_used_codes WHERE tenant_id = $1 AND user_id = ANY($2::text[])', [tenantId, userIds]);
}
