import type { Queryable } from '../../db/pool.js';
import { uniqueViolationOf } from '../../db/pg-errors.js';
import { inTenant, userColumns, userFrom, type LoginMethodRow } from '../../users/repository.js';
import { insertLoginMethodSql, updateLoginMethodEmailSql } from '../../users/login-method-repository.js';
import { verifyEmailsFromSql } from '../emailverification/repository.js';

export interface OptionsRow {
  id: string;
  tenant_id: string;
  challenge: string;
  email: string | null;
  rp_id: string;
  rp_name: string;
  origin: string;
  timeout: number;
  user_verification: string;
  user_presence: boolean;
  supported_algorithm_ids: number[];
  created_at: number;
  expires_at: number;
  uses_left: number;
  verified_counter: number | null;
}

export interface CredentialRow {
  rp_id: string;
  credential_id: string;
  user_id: string;
  public_key: Buffer;
  counter: number;
  transports: string[];
  aaguid: string | null;
  user_handle: string | null;
  backup_eligible: boolean;
  backed_up: boolean;
  created_at: number;
  last_used_at: number | null;
}

export const optionsColumns = `id, tenant_id, challenge, email, rp_id, rp_name, origin, timeout::float8 AS timeout, user_verification,
  user_presence, supported_algorithm_ids, created_at::float8 AS created_at, expires_at::float8 AS expires_at, uses_left,
  verified_counter::float8 AS verified_counter`;

export const credentialColumns = `rp_id, credential_id, user_id, public_key, counter::float8 AS counter, transports, aaguid::text AS aaguid,
  user_handle, backup_eligible, backed_up, created_at::float8 AS created_at, last_used_at::float8 AS last_used_at`;

export async function insertOptions(db: Queryable, row: Omit<OptionsRow, 'verified_counter'>): Promise<void> {
  await db.query(
    `INSERT INTO webauthn_options (id, tenant_id, challenge, email, rp_id, rp_name, origin, timeout, user_verification,
       user_presence, supported_algorithm_ids, created_at, expires_at, uses_left)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [
      row.id,
      row.tenant_id,
      row.challenge,
      row.email,
      row.rp_id,
      row.rp_name,
      row.origin,
      row.timeout,
      row.user_verification,
      row.user_presence,
      row.supported_algorithm_ids,
      row.created_at,
      row.expires_at,
      row.uses_left,
    ],
  );
}

/** `forUpdate` holds the row until the ceremony's transaction ends, so two verifications cannot both spend it. */
export async function findOptionsById(db: Queryable, tenantId: string, id: string, forUpdate = false): Promise<OptionsRow | undefined> {
  const { rows } = await db.query<OptionsRow>(
    `SELECT ${optionsColumns} FROM webauthn_options WHERE id = $1 AND tenant_id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
    [id, tenantId],
  );
  return rows[0];
}

export async function deleteOptionsById(db: Queryable, tenantId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM webauthn_options WHERE id = $1 AND tenant_id = $2', [id, tenantId]);
  return (rowCount ?? 0) > 0;
}

/** One verification under these options: `consume` (cdi >= 5.5) or the last use deletes them, an earlier one counts down. */
export async function spendOptions(db: Queryable, id: string, verifiedCounter: number, consume: boolean): Promise<void> {
  await db.query(
    `WITH gone AS (DELETE FROM webauthn_options WHERE id = $1 AND ($3::boolean OR uses_left <= 1) RETURNING id)
     UPDATE webauthn_options SET uses_left = uses_left - 1, verified_counter = $2
      WHERE id = $1 AND NOT $3::boolean AND uses_left > 1`,
    [id, verifiedCounter, consume],
  );
}

export async function deleteExpiredOptions(db: Queryable, now: number): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM webauthn_options WHERE expires_at < $1', [now]);
  return rowCount ?? 0;
}

export async function findCredentialOfUser(db: Queryable, userId: string, credentialId: string): Promise<CredentialRow | undefined> {
  const { rows } = await db.query<CredentialRow>(
    `SELECT ${credentialColumns} FROM webauthn_credentials WHERE user_id = $1 AND credential_id = $2 ORDER BY rp_id LIMIT 1`,
    [userId, credentialId],
  );
  return rows[0];
}

export async function listCredentialsOfUser(db: Queryable, userId: string): Promise<CredentialRow[]> {
  const { rows } = await db.query<CredentialRow>(
    `SELECT ${credentialColumns} FROM webauthn_credentials WHERE user_id = $1 ORDER BY created_at, credential_id`,
    [userId],
  );
  return rows;
}

export async function deleteCredentialOfUser(db: Queryable, userId: string, credentialId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM webauthn_credentials WHERE user_id = $1 AND credential_id = $2', [userId, credentialId]);
  return (rowCount ?? 0) > 0;
}

export type NewCredential = Omit<CredentialRow, 'last_used_at'>;

/** False when the RP ID already holds this credential id. */
export async function insertCredential(db: Queryable, credential: NewCredential): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO webauthn_credentials (rp_id, credential_id, user_id, public_key, counter, transports, aaguid, user_handle,
       backup_eligible, backed_up, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (rp_id, credential_id) DO NOTHING`,
    [
      credential.rp_id,
      credential.credential_id,
      credential.user_id,
      credential.public_key,
      credential.counter,
      credential.transports,
      credential.aaguid,
      credential.user_handle,
      credential.backup_eligible,
      credential.backed_up,
      credential.created_at,
    ],
  );
  return rowCount === 1;
}

/** False when another webauthn login method of the tenant holds the email. */
export async function insertWebauthnUser(
  db: Queryable,
  user: { userId: string; tenantId: string; email: string; timeJoined: number; verified: boolean },
): Promise<boolean> {
  const { rows } = await db.query<{ n: number }>(
    `WITH ${insertLoginMethodSql.webauthn} RETURNING user_id, email),
     u AS (SELECT * FROM lmu),
     v AS (${verifyEmailsFromSql('u', '$5::boolean')})
     SELECT count(*)::int AS n FROM u`,
    [user.userId, user.tenantId, user.timeJoined, user.email, user.verified],
  );
  return rows[0].n === 1;
}

export async function findWebauthnUserByEmail(db: Queryable, tenantId: string, email: string): Promise<LoginMethodRow | undefined> {
  const { rows } = await db.query<LoginMethodRow>(`SELECT ${userColumns} FROM ${userFrom} ${inTenant('webauthn')} AND lt.email = $2`, [
    tenantId,
    email,
  ]);
  return rows[0];
}

export type EmailUpdate = 'OK' | 'UNKNOWN_USER' | 'EMAIL_TAKEN' | 'EMAIL_HELD_BY_ANOTHER_PRIMARY_USER';

/** A changed email also ends the user's recovery tokens for the old one. */
export async function updateWebauthnEmail(db: Queryable, userId: string, email: string): Promise<EmailUpdate> {
  try {
    const { rows } = await db.query<{ n: number }>(
      `WITH changed AS (${updateLoginMethodEmailSql('webauthn')}),
       gone AS (DELETE FROM webauthn_recover_tokens t USING changed c WHERE t.user_id = c.user_id AND t.email <> $2)
       SELECT count(*)::int AS n FROM changed`,
      [userId, email],
    );
    return rows[0].n === 1 ? 'OK' : 'UNKNOWN_USER';
  } catch (error) {
    const violated = uniqueViolationOf(error);
    if (violated === 'login_method_tenants__email_key') return 'EMAIL_TAKEN';
    if (violated === 'primary_account_infos__info_key') return 'EMAIL_HELD_BY_ANOTHER_PRIMARY_USER';
    throw error;
  }
}

export async function insertRecoverToken(
  db: Queryable,
  token: { hash: Buffer; tenantId: string; userId: string; email: string; expiresAt: number },
): Promise<void> {
  await db.query('INSERT INTO webauthn_recover_tokens (token_hash, tenant_id, user_id, email, expires_at) VALUES ($1, $2, $3, $4, $5)', [
    token.hash,
    token.tenantId,
    token.userId,
    token.email,
    token.expiresAt,
  ]);
}

export interface RecoverTokenRow {
  user_id: string;
  email: string;
  expires_at: number;
}

// A token is good while it has not expired and its user still has the email it was made for (in any login method).
const liveToken = `t.token_hash = $1 AND t.tenant_id = $2 AND t.expires_at >= $3
  AND EXISTS (SELECT 1 FROM user_ids ti JOIN user_ids gi ON gi.group_id = ti.group_id JOIN users gu ON gu.user_id = gi.user_id
               WHERE ti.user_id = t.user_id AND gu.email = t.email)`;

export async function findLiveRecoverToken(
  db: Queryable,
  hash: Buffer,
  tenantId: string,
  now: number,
): Promise<RecoverTokenRow | undefined> {
  const { rows } = await db.query<RecoverTokenRow>(
    `SELECT t.user_id, t.email, t.expires_at::float8 AS expires_at FROM webauthn_recover_tokens t WHERE ${liveToken}`,
    [hash, tenantId, now],
  );
  return rows[0];
}

/** Spends the token and every other token for its email, as the reference does. */
export async function consumeRecoverToken(
  db: Queryable,
  hash: Buffer,
  tenantId: string,
  now: number,
): Promise<RecoverTokenRow | undefined> {
  const { rows } = await db.query<RecoverTokenRow>(
    `WITH found AS (SELECT t.user_id, t.email, t.expires_at FROM webauthn_recover_tokens t WHERE ${liveToken} FOR UPDATE),
     gone AS (DELETE FROM webauthn_recover_tokens d USING found f WHERE d.tenant_id = $2 AND (d.email = f.email OR d.token_hash = $1))
     SELECT user_id, email, expires_at::float8 AS expires_at FROM found`,
    [hash, tenantId, now],
  );
  return rows[0];
}

export interface WebauthnImportConflict {
  kind: 'webauthn-email' | 'webauthn-credential';
  key: string;
  holder: string | null;
}

/**
 * What bulk import finds already taken: webauthn emails of the tenant, and credentials (key `<rpId>\n<credentialId>`)
 * with the id the app knows their holder by.
 */
export async function findWebauthnImportConflicts(
  db: Queryable,
  emails: { tenantIds: string[]; emails: string[] },
  credentials: { rpIds: string[]; credentialIds: string[] },
): Promise<WebauthnImportConflict[]> {
  if (emails.emails.length === 0 && credentials.rpIds.length === 0) return [];
  const { rows } = await db.query<WebauthnImportConflict>(
    `SELECT 'webauthn-email' AS kind, u.tenant_id || E'\\n' || u.email AS key, NULL::text AS holder
       FROM unnest($1::text[], $2::text[]) AS k(tenant_id, email)
       JOIN login_method_tenants u ON u.tenant_id = k.tenant_id AND u.recipe_id = 'webauthn' AND u.email = k.email
     UNION ALL
     SELECT 'webauthn-credential', c.rp_id || E'\\n' || c.credential_id, coalesce(m.external_user_id, c.user_id)
       FROM unnest($3::text[], $4::text[]) AS k(rp_id, credential_id)
       JOIN webauthn_credentials c ON c.rp_id = k.rp_id AND c.credential_id = k.credential_id
       LEFT JOIN user_id_mappings m ON m.user_id = c.user_id`,
    [emails.tenantIds, emails.emails, credentials.rpIds, credentials.credentialIds],
  );
  return rows;
}

/** Imported passkeys, one statement; conflicts were decided before (bulk-import/conflicts.ts). */
export async function insertImportedCredentials(db: Queryable, rows: NewCredential[]): Promise<void> {
  if (rows.length === 0) return;
  const column = <K extends keyof NewCredential>(key: K) => rows.map((row) => row[key]);
  await db.query(
    `INSERT INTO webauthn_credentials (rp_id, credential_id, user_id, public_key, counter, transports, aaguid, user_handle,
       backup_eligible, backed_up, created_at)
     SELECT k.rp_id, k.credential_id, k.user_id, decode(k.public_key, 'base64'), k.counter,
            coalesce((SELECT array_agg(t) FROM json_array_elements_text(k.transports::json) t), '{}'), k.aaguid::uuid, k.user_handle,
            false, false, k.created_at
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::bigint[])
         AS k(rp_id, credential_id, user_id, public_key, counter, transports, aaguid, user_handle, created_at)`,
    [
      column('rp_id'),
      column('credential_id'),
      column('user_id'),
      rows.map((row) => row.public_key.toString('base64')),
      column('counter'),
      rows.map((row) => JSON.stringify(row.transports)),
      column('aaguid'),
      column('user_handle'),
      column('created_at'),
    ],
  );
}
