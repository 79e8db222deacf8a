import type { Queryable } from '../../db/pool.js';
import { inTenant, userColumns, userFrom, type LoginMethodRow } from '../../users/repository.js';
import { insertLoginMethodSql, returnedUserColumns } from '../../users/login-method-repository.js';
import { verifyEmailsFromSql } from '../emailverification/repository.js';
import { foreignKeyViolationOf, uniqueViolationOf } from '../../db/pg-errors.js';

export type ContactKind = 'email' | 'phoneNumber';
export interface Contact {
  kind: ContactKind;
  value: string;
}

export interface DeviceRow {
  device_id_hash: string;
  email: string | null;
  phone_number: string | null;
  link_code_salt: string;
  failed_attempts: number;
}

export interface CodeRow {
  code_id: string;
  created_at: number;
}

export interface DeviceWithCodes extends DeviceRow {
  codes: CodeRow[];
}

export interface NewCode {
  codeId: string;
  deviceIdHash: string;
  linkCodeHash: string;
  createdAt: number;
}

const contactColumn = { email: 'email', phoneNumber: 'phone_number' } as const;
const deviceColumns = 'd.device_id_hash, d.email, d.phone_number, d.link_code_salt, d.failed_attempts';

export function contactOf(row: { email: string | null; phone_number: string | null }): Contact {
  return row.email !== null ? { kind: 'email', value: row.email } : { kind: 'phoneNumber', value: row.phone_number! };
}

const emailOrNull = (contact: Contact) => (contact.kind === 'email' ? contact.value : null);
const phoneOrNull = (contact: Contact) => (contact.kind === 'phoneNumber' ? contact.value : null);

// Everything that changes several devices of one email or phone number (consume, removal by contact, contact
// updates) first takes this transaction-scoped lock, so those flows run one at a time per contact and never
// wait on each other's row locks in opposite orders.
const contactLockKey = (tenant: string, kind: string, value: string) =>
  `hashtextextended(${tenant} || ':' || ${kind} || ':' || ${value}, 5)`;
const deviceContactLock = `pg_advisory_xact_lock(${contactLockKey('d.tenant_id', "CASE WHEN d.email IS NULL THEN 'phoneNumber' ELSE 'email' END", 'coalesce(d.email, d.phone_number)')})`;

export async function lockContacts(db: Queryable, tenantIds: readonly string[], contacts: Contact[]): Promise<void> {
  // Keys are taken in ascending order so two callers locking the same pair cannot deadlock.
  await db.query(
    `SELECT pg_advisory_xact_lock(key) FROM (
       SELECT DISTINCT ${contactLockKey('t.tenant_id', 'c.kind', 'c.value')} AS key
       FROM unnest($1::text[]) AS t(tenant_id) CROSS JOIN unnest($2::text[], $3::text[]) AS c(kind, value) ORDER BY key) AS keys`,
    [tenantIds, contacts.map((c) => c.kind), contacts.map((c) => c.value)],
  );
}

/** Finds the device (by its hash, or by one of its link codes) and locks its contact; undefined if unknown. */
export async function lockContactOfDevice(
  db: Queryable,
  tenantId: string,
  by: { deviceIdHash: string } | { linkCodeHash: string },
): Promise<DeviceRow | undefined> {
  const sql =
    'deviceIdHash' in by
      ? `SELECT ${deviceColumns}, ${deviceContactLock} FROM passwordless_devices d WHERE d.tenant_id = $1 AND d.device_id_hash = $2`
      : `SELECT ${deviceColumns}, ${deviceContactLock} FROM passwordless_codes c
         JOIN passwordless_devices d ON d.tenant_id = c.tenant_id AND d.device_id_hash = c.device_id_hash
         WHERE c.tenant_id = $1 AND c.link_code_hash = $2`;
  const { rows } = await db.query<DeviceRow>(sql, [tenantId, 'deviceIdHash' in by ? by.deviceIdHash : by.linkCodeHash]);
  return rows[0];
}

/** Locks the device row and returns it with the creation time of its code that has this hash (null if none). */
export async function findDeviceWithCodeForUpdate(
  db: Queryable,
  tenantId: string,
  deviceIdHash: string,
  linkCodeHash: string,
): Promise<(DeviceRow & { code_created_at: number | null }) | undefined> {
  const { rows } = await db.query<DeviceRow & { code_created_at: number | null }>(
    `SELECT ${deviceColumns}, c.created_at AS code_created_at FROM passwordless_devices d
     LEFT JOIN passwordless_codes c ON c.tenant_id = d.tenant_id AND c.device_id_hash = d.device_id_hash AND c.link_code_hash = $3
     WHERE d.tenant_id = $1 AND d.device_id_hash = $2 FOR UPDATE OF d`,
    [tenantId, deviceIdHash, linkCodeHash],
  );
  return rows[0];
}

export async function findDeviceByHash(db: Queryable, tenantId: string, deviceIdHash: string): Promise<DeviceRow | undefined> {
  const { rows } = await db.query<DeviceRow>(
    `SELECT ${deviceColumns} FROM passwordless_devices d WHERE d.tenant_id = $1 AND d.device_id_hash = $2`,
    [tenantId, deviceIdHash],
  );
  return rows[0];
}

/** One statement, so a device never exists without its first code; false on an id collision. */
export async function insertDeviceWithCode(
  db: Queryable,
  tenantId: string,
  contact: Contact,
  linkCodeSalt: string,
  code: NewCode,
): Promise<boolean> {
  try {
    await db.query(
      `WITH device AS (
         INSERT INTO passwordless_devices (tenant_id, device_id_hash, email, phone_number, link_code_salt, failed_attempts, created_at)
         VALUES ($1, $2, $3, $4, $5, 0, $6) RETURNING tenant_id, device_id_hash)
       INSERT INTO passwordless_codes (tenant_id, code_id, device_id_hash, link_code_hash, created_at)
       SELECT tenant_id, $7, device_id_hash, $8, $6 FROM device`,
      [
        tenantId,
        code.deviceIdHash,
        emailOrNull(contact),
        phoneOrNull(contact),
        linkCodeSalt,
        code.createdAt,
        code.codeId,
        code.linkCodeHash,
      ],
    );
    return true;
  } catch (error) {
    if (uniqueViolationOf(error)) return false;
    throw error;
  }
}

export type CodeInsertion = 'inserted' | 'link-code-taken' | 'code-id-taken' | 'device-gone';

export async function insertCode(db: Queryable, tenantId: string, code: NewCode): Promise<CodeInsertion> {
  try {
    await db.query(
      'INSERT INTO passwordless_codes (tenant_id, code_id, device_id_hash, link_code_hash, created_at) VALUES ($1, $2, $3, $4, $5)',
      [tenantId, code.codeId, code.deviceIdHash, code.linkCodeHash, code.createdAt],
    );
    return 'inserted';
  } catch (error) {
    const index = uniqueViolationOf(error);
    if (index === 'passwordless_codes__link_code_hash_key') return 'link-code-taken';
    if (index) return 'code-id-taken';
    if (foreignKeyViolationOf(error)) return 'device-gone';
    throw error;
  }
}

export async function incrementFailedAttempts(db: Queryable, tenantId: string, deviceIdHash: string): Promise<void> {
  await db.query('UPDATE passwordless_devices SET failed_attempts = failed_attempts + 1 WHERE tenant_id = $1 AND device_id_hash = $2', [
    tenantId,
    deviceIdHash,
  ]);
}

export async function deleteDevice(db: Queryable, tenantId: string, deviceIdHash: string): Promise<void> {
  await db.query('DELETE FROM passwordless_devices WHERE tenant_id = $1 AND device_id_hash = $2', [tenantId, deviceIdHash]);
}

/** The caller holds the contacts' locks (lockContacts). */
export async function deleteDevicesByContacts(db: Queryable, tenantIds: readonly string[], contacts: Contact[]): Promise<void> {
  await db.query(
    'DELETE FROM passwordless_devices WHERE tenant_id = ANY($1::text[]) AND (email = ANY($2::text[]) OR phone_number = ANY($3::text[]))',
    [
      tenantIds,
      contacts.filter((c) => c.kind === 'email').map((c) => c.value),
      contacts.filter((c) => c.kind === 'phoneNumber').map((c) => c.value),
    ],
  );
}

/** For a contact whose lock the caller does not hold: devices another flow is working on are left alone. */
export async function deleteUnlockedDevicesByContact(db: Queryable, tenantId: string, contact: Contact): Promise<void> {
  await db.query(
    `DELETE FROM passwordless_devices WHERE (tenant_id, device_id_hash) IN (
       SELECT tenant_id, device_id_hash FROM passwordless_devices WHERE tenant_id = $1 AND ${contactColumn[contact.kind]} = $2
       FOR UPDATE SKIP LOCKED)`,
    [tenantId, contact.value],
  );
}

/** Removes one code, and its device when that was the device's last code. */
export async function deleteCodeById(db: Queryable, tenantId: string, codeId: string): Promise<void> {
  const { rows } = await db.query<{ device_id_hash: string }>(
    `SELECT d.device_id_hash FROM passwordless_codes c
     JOIN passwordless_devices d ON d.tenant_id = c.tenant_id AND d.device_id_hash = c.device_id_hash
     WHERE c.tenant_id = $1 AND c.code_id = $2 FOR UPDATE OF d`,
    [tenantId, codeId],
  );
  if (rows.length === 0) return;
  await db.query('DELETE FROM passwordless_codes WHERE tenant_id = $1 AND code_id = $2', [tenantId, codeId]);
  await db.query(
    `DELETE FROM passwordless_devices d WHERE d.tenant_id = $1 AND d.device_id_hash = $2
     AND NOT EXISTS (SELECT 1 FROM passwordless_codes c WHERE c.tenant_id = d.tenant_id AND c.device_id_hash = d.device_id_hash)`,
    [tenantId, rows[0].device_id_hash],
  );
}

/** Devices whose every code was created before validSince; devices someone is using right now are skipped. */
export async function deleteDevicesWithOnlyExpiredCodes(db: Queryable, validSince: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM passwordless_devices WHERE (tenant_id, device_id_hash) IN (
       SELECT d.tenant_id, d.device_id_hash FROM passwordless_devices d
       WHERE NOT EXISTS (SELECT 1 FROM passwordless_codes c
         WHERE c.tenant_id = d.tenant_id AND c.device_id_hash = d.device_id_hash AND c.created_at >= $1)
       FOR UPDATE SKIP LOCKED)`,
    [validSince],
  );
  return rowCount ?? 0;
}

export type DeviceFilter = Contact | { kind: 'deviceIdHash'; value: string };

/** Devices and their codes, both oldest first (contract §5.5 leaves the order open). */
export async function listDevicesWithCodes(db: Queryable, tenantId: string, filter: DeviceFilter): Promise<DeviceWithCodes[]> {
  const column = filter.kind === 'deviceIdHash' ? 'device_id_hash' : contactColumn[filter.kind];
  const { rows } = await db.query<DeviceRow & { code_id: string | null; code_created_at: number | null }>(
    `SELECT ${deviceColumns}, c.code_id, c.created_at AS code_created_at FROM passwordless_devices d
     LEFT JOIN passwordless_codes c ON c.tenant_id = d.tenant_id AND c.device_id_hash = d.device_id_hash
     WHERE d.tenant_id = $1 AND d.${column} = $2
     ORDER BY d.created_at, d.device_id_hash, c.created_at, c.code_id`,
    [tenantId, filter.value],
  );
  const devices = new Map<string, DeviceWithCodes>();
  for (const { code_id, code_created_at, ...device } of rows) {
    let entry = devices.get(device.device_id_hash);
    if (!entry) devices.set(device.device_id_hash, (entry = { ...device, codes: [] }));
    if (code_id !== null) entry.codes.push({ code_id, created_at: code_created_at! });
  }
  return [...devices.values()];
}

export async function findPasswordlessUserByContact(
  db: Queryable,
  tenantId: string,
  contact: Contact,
): Promise<LoginMethodRow | undefined> {
  const { rows } = await db.query<LoginMethodRow>(
    `SELECT ${userColumns} FROM ${userFrom} ${inTenant('passwordless')} AND lt.${contactColumn[contact.kind]} = $2`,
    [tenantId, contact.value],
  );
  return rows[0];
}

/** On a successful consume: the contact's pending devices go, and its passwordless user (if any) comes back. */
export async function deleteDevicesAndFindUserByContact(
  db: Queryable,
  tenantId: string,
  contact: Contact,
): Promise<LoginMethodRow | undefined> {
  const column = contactColumn[contact.kind];
  const { rows } = await db.query<LoginMethodRow>(
    `WITH deleted AS (DELETE FROM passwordless_devices WHERE tenant_id = $1 AND ${column} = $2)
     SELECT ${userColumns} FROM ${userFrom} ${inTenant('passwordless')} AND lt.${column} = $2`,
    [tenantId, contact.value],
  );
  return rows[0];
}

/** undefined when another passwordless user took the contact first (a unique index said no). */
export async function insertPasswordlessUser(
  db: Queryable,
  user: { userId: string; tenantId: string; timeJoined: number; contact: Contact; markEmailVerified: boolean },
): Promise<LoginMethodRow | undefined> {
  // A new user has no id mapping yet, so the row is complete without a join; its email is verified in the same
  // statement when asked.
  const { rows } = await db.query<LoginMethodRow>(
    `WITH ${insertLoginMethodSql.passwordless} RETURNING ${returnedUserColumns}),
     u AS (SELECT * FROM lmu),
     v AS (${verifyEmailsFromSql('u', '$6::boolean AND email IS NOT NULL')})
     SELECT u.*, NULL::text AS external_user_id, (u.email IS NULL OR $6::boolean) AS verified, false AS in_primary_user FROM u`,
    [user.userId, user.tenantId, user.timeJoined, emailOrNull(user.contact), phoneOrNull(user.contact), user.markEmailVerified],
  );
  return rows[0];
}

/** Locks the user row against concurrent updates while still letting rows that reference it be inserted. */
export async function findUserByIdForUpdate(db: Queryable, id: string): Promise<LoginMethodRow | undefined> {
  const { rows } = await db.query<LoginMethodRow>(
    `SELECT ${userColumns} FROM ${userFrom}
     WHERE u.user_id = coalesce((SELECT user_id FROM users WHERE user_id = $1),
       (SELECT user_id FROM user_id_mappings WHERE external_user_id = $1))
     FOR NO KEY UPDATE OF u`,
    [id],
  );
  return rows[0];
}

/** Which of the given values another passwordless user of any of the tenants already has. */
export async function findContactOwners(
  db: Queryable,
  tenantIds: readonly string[],
  userId: string,
  email: string | null,
  phoneNumber: string | null,
): Promise<{ emailTaken: boolean; phoneNumberTaken: boolean }> {
  const { rows } = await db.query<{ email_taken: boolean | null; phone_taken: boolean | null }>(
    `SELECT bool_or(email = $3) AS email_taken, bool_or(phone_number = $4) AS phone_taken FROM login_method_tenants
     WHERE tenant_id = ANY($1::text[]) AND recipe_id = 'passwordless' AND user_id <> $2 AND (email = $3 OR phone_number = $4)`,
    [tenantIds, userId, email, phoneNumber],
  );
  return { emailTaken: rows[0]?.email_taken === true, phoneNumberTaken: rows[0]?.phone_taken === true };
}
