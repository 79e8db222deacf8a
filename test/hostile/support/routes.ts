import type { FastifyInstance } from 'fastify';
import bcryptjs from 'bcryptjs';
import { hashSync as argon2Hash } from '@node-rs/argon2';

// Valid requests for every route of the contract, built from a seeded database, so mutations start from
// inputs that reach the deep code paths (existing devices, users, mappings, queue rows).

export const fuzzApiKey = 'fuzz-api-key-of-at-least-20-chars';
export const fuzzSignerKey = 'gRhC3eDeQOdyEn4bMd9c6kxguWVmcIVq/SKa0JDPFeM6TcEevkaW56sIWfx88OHbJKnCXdWscZx0l2WbCJ1wbg==';
export const scryptHash =
  '$f_scrypt$qZM035es5AXYqavsKD6/rhtxg7t5PhcyRgv5blc3doYbChX8keMfQLq1ra96O2Pf2TP/eZrR5xtPCYN6mX3ESA==$/cj0jC1br5o4+w==$m=14$r=8$s=Bw==';
export const bcryptHash = bcryptjs.hashSync('fuzz password', 4);
export const argon2idHash = argon2Hash('fuzz password', { memoryCost: 64, timeCost: 1, parallelism: 1 });

interface Code {
  deviceId: string;
  preAuthSessionId: string;
  linkCode: string;
  userInputCode: string;
  codeId: string;
}

export interface Seed {
  emailCode: Code;
  phoneCode: Code;
  passwordlessUserId: string;
  emailPasswordUserId: string;
  thirdPartyUserId: string;
  externalId: string;
  queueRowId: string;
}

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

export interface RouteCase {
  name: string;
  method: Method;
  path: string;
  rid?: string;
  body?: (seed: Seed) => Record<string, unknown>;
  query?: (seed: Seed) => Record<string, string>;
}

async function post(app: FastifyInstance, url: string, body: unknown) {
  const response = await app.inject({ method: 'POST', url, headers: { 'api-key': fuzzApiKey }, payload: body as object });
  if (response.statusCode !== 200) throw new Error(`seeding ${url} failed: ${response.statusCode} ${response.body}`);
  return response.json();
}

export async function seed(app: FastifyInstance, n: number): Promise<Seed> {
  const emailCode = await post(app, '/recipe/signinup/code', { email: `seed${n}@example.com` });
  const phoneCode = await post(app, '/recipe/signinup/code', { phoneNumber: `+1415555${String(n % 10000).padStart(4, '0')}` });
  const pwl = await post(app, '/recipe/signinup/code', { email: `pwl${n}@example.com` });
  const consumed = await post(app, '/recipe/signinup/code/consume', { preAuthSessionId: pwl.preAuthSessionId, linkCode: pwl.linkCode });
  const ep = await post(app, '/recipe/user/passwordhash/import', { email: `ep${n}@example.com`, passwordHash: bcryptHash });
  const tp = await post(app, '/recipe/signinup', {
    thirdPartyId: 'google',
    thirdPartyUserId: `g-${n}`,
    email: { id: `tp${n}@example.com`, isVerified: true },
  });
  await post(app, '/recipe/userid/map', { superTokensUserId: tp.user.id, externalUserId: `ext-${n}` });
  const queued = await post(app, '/bulk-import/users', { users: [bulkUser(`queued-${n}`)] });
  return {
    emailCode,
    phoneCode,
    passwordlessUserId: consumed.user.id,
    emailPasswordUserId: ep.user.id,
    thirdPartyUserId: tp.user.id,
    externalId: `ext-${n}`,
    queueRowId: queued.users[0].loginMethods[0].userId,
  };
}

let unique = 0;
const next = () => `${Date.now().toString(36)}-${(unique++).toString(36)}`;

function bulkUser(tag: string) {
  return {
    externalUserId: `bulk-${tag}`,
    userMetadata: { source: 'fuzz', nested: { level: 1 } },
    loginMethods: [
      {
        recipeId: 'emailpassword',
        email: `bulk-${tag}@example.com`,
        passwordHash: bcryptHash,
        hashingAlgorithm: 'bcrypt',
        isVerified: true,
        timeJoinedInMSSinceEpoch: 1506523117518,
      },
    ],
  };
}

const bulkUsers = (tag: string) => [
  bulkUser(tag),
  { loginMethods: [{ recipeId: 'thirdparty', email: `tp-${tag}@example.com`, thirdPartyId: 'github', thirdPartyUserId: `gh-${tag}` }] },
  { loginMethods: [{ recipeId: 'passwordless', phoneNumber: '+1 415 555 0199', email: `pl-${tag}@example.com` }] },
  { loginMethods: [{ recipeId: 'emailpassword', email: `plain-${tag}@example.com`, plainTextPassword: 'plain password' }] },
];

export const routeCases: RouteCase[] = [
  {
    name: 'apiversion',
    method: 'GET',
    path: '/apiversion',
    query: () => ({ websiteDomain: 'https://a.example', apiDomain: 'https://b.example' }),
  },
  { name: 'hello', method: 'GET', path: '/hello' },
  { name: 'create code by email', method: 'POST', path: '/recipe/signinup/code', body: () => ({ email: `Fuzz-${next()}@Example.com` }) },
  {
    name: 'create code by phone',
    method: 'POST',
    path: '/recipe/signinup/code',
    body: () => ({ phoneNumber: '+44 20 7183 8750', userInputCode: next() }),
  },
  {
    name: 'resend code',
    method: 'POST',
    path: '/recipe/signinup/code',
    body: (s) => ({ deviceId: s.emailCode.deviceId, userInputCode: next() }),
  },
  {
    name: 'consume by link',
    method: 'POST',
    path: '/recipe/signinup/code/consume',
    body: (s) => ({ preAuthSessionId: s.emailCode.preAuthSessionId, linkCode: s.emailCode.linkCode }),
  },
  {
    name: 'consume by code',
    method: 'POST',
    path: '/recipe/signinup/code/consume',
    body: (s) => ({
      preAuthSessionId: s.phoneCode.preAuthSessionId,
      deviceId: s.phoneCode.deviceId,
      userInputCode: s.phoneCode.userInputCode,
    }),
  },
  {
    name: 'check code',
    method: 'POST',
    path: '/recipe/signinup/code/check',
    body: (s) => ({
      preAuthSessionId: s.emailCode.preAuthSessionId,
      deviceId: s.emailCode.deviceId,
      userInputCode: s.emailCode.userInputCode,
    }),
  },
  { name: 'remove code', method: 'POST', path: '/recipe/signinup/code/remove', body: (s) => ({ codeId: s.phoneCode.codeId }) },
  {
    name: 'remove device',
    method: 'POST',
    path: '/recipe/signinup/code/remove',
    body: (s) => ({ preAuthSessionId: s.phoneCode.preAuthSessionId }),
  },
  { name: 'remove codes', method: 'POST', path: '/recipe/signinup/codes/remove', body: () => ({ email: 'nobody@example.com' }) },
  { name: 'list codes by device', method: 'GET', path: '/recipe/signinup/codes', query: (s) => ({ deviceId: s.emailCode.deviceId }) },
  { name: 'list codes by phone', method: 'GET', path: '/recipe/signinup/codes', query: () => ({ phoneNumber: '+14155550000' }) },
  {
    name: 'list codes by session',
    method: 'GET',
    path: '/recipe/signinup/codes',
    query: (s) => ({ preAuthSessionId: s.emailCode.preAuthSessionId }),
  },
  {
    name: 'passwordless update',
    method: 'PUT',
    path: '/recipe/user',
    rid: 'passwordless',
    body: (s) => ({ recipeUserId: s.passwordlessUserId, phoneNumber: '+1 650 555 0101', email: null }),
  },
  { name: 'passwordless get', method: 'GET', path: '/recipe/user', rid: 'passwordless', query: (s) => ({ userId: s.passwordlessUserId }) },
  {
    name: 'import bcrypt',
    method: 'POST',
    path: '/recipe/user/passwordhash/import',
    body: () => ({ email: `imp-${next()}@example.com`, passwordHash: bcryptHash }),
  },
  {
    name: 'import argon2',
    method: 'POST',
    path: '/recipe/user/passwordhash/import',
    body: () => ({ email: `arg-${next()}@example.com`, passwordHash: argon2idHash, hashingAlgorithm: 'ARGON2' }),
  },
  {
    name: 'import scrypt',
    method: 'POST',
    path: '/recipe/user/passwordhash/import',
    body: () => ({ email: `scr-${next()}@example.com`, passwordHash: scryptHash, hashingAlgorithm: 'idp_scrypt' }),
  },
  { name: 'sign in', method: 'POST', path: '/recipe/signin', body: () => ({ email: 'nobody@example.com', password: 'fuzz password' }) },
  {
    name: 'sign up',
    method: 'POST',
    path: '/recipe/signup',
    body: () => ({ email: `up-${next()}@example.com`, password: 'fuzz password' }),
  },
  { name: 'emailpassword get', method: 'GET', path: '/recipe/user', query: (s) => ({ userId: s.emailPasswordUserId }) },
  {
    name: 'emailpassword update',
    method: 'PUT',
    path: '/recipe/user',
    body: (s) => ({ recipeUserId: s.emailPasswordUserId, email: `moved-${next()}@example.com` }),
  },
  {
    name: 'third-party sign in up',
    method: 'POST',
    path: '/recipe/signinup',
    body: () => ({ thirdPartyId: 'google', thirdPartyUserId: `g-${next()}`, email: { id: 'tp@example.com', isVerified: false } }),
  },
  {
    name: 'third-party get',
    method: 'GET',
    path: '/recipe/user',
    rid: 'thirdparty',
    query: () => ({ thirdPartyId: 'google', thirdPartyUserId: 'g-0' }),
  },
  { name: 'third-party by email', method: 'GET', path: '/recipe/users/by-email', query: () => ({ email: 'tp0@example.com' }) },
  { name: 'user by id', method: 'GET', path: '/user/id', query: (s) => ({ userId: s.externalId }) },
  {
    name: 'remove user',
    method: 'POST',
    path: '/user/remove',
    body: (s) => ({ userId: s.emailPasswordUserId, removeAllLinkedAccounts: true }),
  },
  {
    name: 'list users',
    method: 'GET',
    path: '/users',
    query: () => ({ limit: '2', timeJoinedOrder: 'DESC', includeRecipeIds: 'emailpassword,thirdparty' }),
  },
  { name: 'list users page 2', method: 'GET', path: '/users', query: () => ({ paginationToken: Buffer.from('zzz;1').toString('base64') }) },
  { name: 'search users', method: 'GET', path: '/users', query: () => ({ email: 'ep;tp', provider: 'goo' }) },
  {
    name: 'users by account info',
    method: 'GET',
    path: '/users/by-accountinfo',
    query: () => ({ email: 'tp0@example.com', thirdPartyId: 'google', thirdPartyUserId: 'g-0', doUnionOfAccountInfo: 'true' }),
  },
  {
    name: 'count users',
    method: 'GET',
    path: '/users/count',
    query: () => ({ includeRecipeIds: 'passwordless, emailpassword', includeAllTenants: 'true' }),
  },
  {
    name: 'create mapping',
    method: 'POST',
    path: '/recipe/userid/map',
    body: (s) => ({ superTokensUserId: s.passwordlessUserId, externalUserId: `ext-${next()}`, externalUserIdInfo: 'info', force: false }),
  },
  { name: 'get mapping', method: 'GET', path: '/recipe/userid/map', query: (s) => ({ userId: s.externalId, userIdType: 'EXTERNAL' }) },
  {
    name: 'remove mapping',
    method: 'POST',
    path: '/recipe/userid/map/remove',
    body: (s) => ({ userId: s.externalId, userIdType: 'ANY', force: true }),
  },
  {
    name: 'update mapping info',
    method: 'PUT',
    path: '/recipe/userid/external-user-id-info',
    body: (s) => ({ userId: s.thirdPartyUserId, userIdType: 'SUPERTOKENS', externalUserIdInfo: 'new info' }),
  },
  { name: 'bulk add', method: 'POST', path: '/bulk-import/users', body: () => ({ users: bulkUsers(next()) }) },
  { name: 'bulk import one', method: 'POST', path: '/bulk-import/import', body: () => bulkUser(next()) },
  { name: 'bulk list', method: 'GET', path: '/bulk-import/users', query: () => ({ status: 'NEW', limit: '10' }) },
  { name: 'bulk count', method: 'GET', path: '/bulk-import/users/count', query: () => ({ status: 'FAILED' }) },
  { name: 'bulk remove', method: 'POST', path: '/bulk-import/users/remove', body: (s) => ({ ids: [s.queueRowId, 'unknown-id'] }) },
];
