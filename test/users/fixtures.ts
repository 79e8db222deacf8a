import crypto from 'node:crypto';
import type { TestDatabase } from '../helper.js';
import { expectedWireUser } from '../wire-user.js';

// Users written straight into the tables, so these tests do not depend on other recipes' routes.
export interface FixtureUser {
  userId?: string;
  tenantId?: string;
  recipeId?: 'emailpassword' | 'passwordless' | 'thirdparty';
  timeJoined?: number;
  email?: string | null;
  phoneNumber?: string | null;
  thirdPartyId?: string | null;
  thirdPartyUserId?: string | null;
}

export interface StoredUser {
  userId: string;
  tenantId: string;
  recipeId: 'emailpassword' | 'passwordless' | 'thirdparty';
  timeJoined: number;
  email: string | null;
  phoneNumber: string | null;
  thirdPartyId: string | null;
  thirdPartyUserId: string | null;
}

export async function insertUser(db: TestDatabase, user: FixtureUser = {}): Promise<StoredUser> {
  const recipeId = user.recipeId ?? 'emailpassword';
  const stored: StoredUser = {
    userId: user.userId ?? crypto.randomUUID(),
    tenantId: user.tenantId ?? 'public',
    recipeId,
    timeJoined: user.timeJoined ?? 1_700_000_000_000,
    email: user.email === undefined ? (recipeId === 'passwordless' ? null : `${crypto.randomUUID()}@example.com`) : user.email,
    phoneNumber: user.phoneNumber ?? null,
    thirdPartyId: user.thirdPartyId ?? (recipeId === 'thirdparty' ? 'google' : null),
    thirdPartyUserId: user.thirdPartyUserId ?? (recipeId === 'thirdparty' ? crypto.randomUUID() : null),
  };
  await db.pool.query(
    `INSERT INTO users (user_id, tenant_id, recipe_id, time_joined, email, phone_number, third_party_id, third_party_user_id, password_hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      stored.userId,
      stored.tenantId,
      recipeId,
      stored.timeJoined,
      stored.email,
      stored.phoneNumber,
      stored.thirdPartyId,
      stored.thirdPartyUserId,
      recipeId === 'emailpassword' ? '$2b$04$fixturefixturefixturefixtu' : null,
    ],
  );
  return stored;
}

export async function mapUser(db: TestDatabase, userId: string, externalUserId: string, info: string | null = null): Promise<void> {
  await db.pool.query('INSERT INTO user_id_mappings (user_id, external_user_id, external_user_id_info) VALUES ($1, $2, $3)', [
    userId,
    externalUserId,
    info,
  ]);
}

// A mapping whose external id is another user's id, as POST /recipe/userid/map with `force` stores it (migration 0016
// refuses it otherwise).
export async function forceMapUser(db: TestDatabase, userId: string, externalUserId: string): Promise<void> {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SELECT set_config('identity_core.force_user_id_mapping', 'on', true)`);
    await client.query('INSERT INTO user_id_mappings (user_id, external_user_id) VALUES ($1, $2)', [userId, externalUserId]);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
}

export async function verifyEmail(db: TestDatabase, userId: string, email: string): Promise<void> {
  await db.pool.query('INSERT INTO email_verifications (user_id, email) VALUES ($1, $2)', [userId, email]);
}

export async function addMetadata(db: TestDatabase, userId: string, metadata: object = { plan: 'pro' }): Promise<void> {
  await db.pool.query('INSERT INTO user_metadata (user_id, metadata) VALUES ($1, $2)', [userId, JSON.stringify(metadata)]);
}

export async function addRole(db: TestDatabase, userId: string, role = 'admin'): Promise<void> {
  await db.pool.query('INSERT INTO roles (role) VALUES ($1) ON CONFLICT DO NOTHING', [role]);
  await db.pool.query("INSERT INTO user_roles (user_id, tenant_id, role) VALUES ($1, 'public', $2)", [userId, role]);
}

// The §3 user object of a fixture row (test/wire-user.ts).
export function expectedUser(user: StoredUser, options: { verified?: boolean; externalId?: string; webauthn?: boolean } = {}) {
  const id = options.externalId ?? user.userId;
  return expectedWireUser(
    {
      recipeId: user.recipeId,
      recipeUserId: id,
      timeJoined: user.timeJoined,
      verified: options.verified ?? user.email === null,
      tenantIds: [user.tenantId],
      ...(user.email !== null && { email: user.email }),
      ...(user.phoneNumber !== null && { phoneNumber: user.phoneNumber }),
      ...(user.thirdPartyId !== null && { thirdParty: { id: user.thirdPartyId, userId: user.thirdPartyUserId! } }),
    },
    { webauthn: options.webauthn },
  );
}

// The single-login-method shape of cdi < 4.0.
export function expectedLegacyUser(user: StoredUser, options: { externalId?: string; tenantIds?: boolean } = {}) {
  return {
    id: options.externalId ?? user.userId,
    timeJoined: user.timeJoined,
    ...(options.tenantIds !== false && { tenantIds: [user.tenantId] }),
    ...(user.email !== null && { email: user.email }),
    ...(user.phoneNumber !== null && { phoneNumber: user.phoneNumber }),
    ...(user.thirdPartyId !== null && { thirdParty: { id: user.thirdPartyId, userId: user.thirdPartyUserId } }),
  };
}

// Every table that holds a row for this internal id.
export async function tablesHoldingUser(db: TestDatabase, userId: string): Promise<string[]> {
  const tables = ['users', 'user_id_mappings', 'email_verifications', 'user_metadata', 'user_roles'];
  const holding: string[] = [];
  for (const table of tables) {
    const { rows } = await db.pool.query(`SELECT 1 FROM ${table} WHERE user_id = $1`, [userId]);
    if (rows.length > 0) holding.push(table);
  }
  return holding;
}
