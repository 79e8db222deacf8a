import { expect } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { call, snapshot, type Reply, type TestDatabase } from '../../helper.js';
import { expectedWireUser } from '../../wire-user.js';

export const IMPORT = '/recipe/user/passwordhash/import';
export const SIGNIN = '/recipe/signin';
export const SIGNUP = '/recipe/signup';
export const USER = '/recipe/user';

export const SIGNER_KEY_MISSING_MESSAGE =
  "'idp_password_hashing_signer_key' is not configured: set it in config.yaml or IDP_PASSWORD_HASHING_SIGNER_KEY";
export const tenantNotFound = (appId: string, tenantId: string) =>
  `AppId or tenantId not found => Tenant with the following connectionURIDomain, appId and tenantId combination not found: (, ${appId}, ${tenantId})`;

export interface ExpectedUser {
  id: string;
  email: string;
  timeJoined: number;
  verified?: boolean;
}

/** The §3 user (and the §11 shapes for older cdi-versions) of an email-password user. */
export function emailPasswordUser({ id, email, timeJoined, verified = false }: ExpectedUser, cdiVersion = '5.6') {
  const [major, minor] = cdiVersion.split('.').map(Number);
  if (major < 4) return { id, timeJoined, email, ...(major >= 3 && { tenantIds: ['public'] }) };
  const webauthn = major > 5 || (major === 5 && minor >= 3);
  return expectedWireUser({ recipeId: 'emailpassword', recipeUserId: id, timeJoined, verified, email }, { webauthn });
}

export function signedIn(user: ExpectedUser, cdiVersion = '5.6') {
  const recipeUserId = Number(cdiVersion.split('.')[0]) >= 4 ? { recipeUserId: user.id } : {};
  return { status: 'OK', user: emailPasswordUser(user, cdiVersion), ...recipeUserId };
}

export const importHash = (app: FastifyInstance, email: string, passwordHash: string, hashingAlgorithm?: string) =>
  call(app, 'POST', IMPORT, { body: { email, passwordHash, ...(hashingAlgorithm !== undefined && { hashingAlgorithm }) } });

export const signIn = (app: FastifyInstance, email: string, password: string, headers?: Record<string, string>) =>
  call(app, 'POST', SIGNIN, { body: { email, password }, headers });

export const signUp = (app: FastifyInstance, email: string, password: string, headers?: Record<string, string>) =>
  call(app, 'POST', SIGNUP, { body: { email, password }, headers });

export async function storedHash(db: TestDatabase, email: string): Promise<string | undefined> {
  const { rows } = await db.pool.query<{ password_hash: string }>(
    `SELECT password_hash FROM users WHERE email = $1 AND recipe_id = 'emailpassword'`,
    [email],
  );
  return rows[0]?.password_hash;
}

export async function insertPasswordlessUser(db: TestDatabase, userId: string, email: string, timeJoined: number): Promise<void> {
  await db.pool.query(
    `INSERT INTO users (user_id, tenant_id, recipe_id, time_joined, email) VALUES ($1, 'public', 'passwordless', $2, $3)`,
    [userId, timeJoined, email],
  );
}

export async function mapUserId(db: TestDatabase, userId: string, externalUserId: string): Promise<void> {
  await db.pool.query('INSERT INTO user_id_mappings (user_id, external_user_id) VALUES ($1, $2)', [userId, externalUserId]);
}

/** A 400 with exactly this plain-text message, and not a row written anywhere. */
export async function expectRejected(db: TestDatabase, send: () => Promise<Reply>, status: number, message: string): Promise<void> {
  const before = await snapshot(db);
  const reply = await send();
  expect([reply.statusCode, reply.body, reply.contentType]).toEqual([status, `${message}\n`, 'text/html; charset=UTF-8']);
  expect(await snapshot(db)).toEqual(before);
}
