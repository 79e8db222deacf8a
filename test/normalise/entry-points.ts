import { expect } from 'vitest';
import { bcryptHash } from '../bulk-import/fixtures.js';
import { call, snapshot, type TestApp } from '../helper.js';

// Every route that takes an email or a phone number, as a request built around one value, with the shape its 400
// has: plain text, or the JSON of the two bulk-import routes. A route that only looks up or removes (`notFound`)
// answers a value the rules refuse as one that no user has, as the reference does: the rules apply where data is
// written.

export interface Existing {
  passwordlessUserId: string;
  emailPasswordUserId: string;
}

type Method = 'GET' | 'POST' | 'PUT';
interface Request {
  method: Method;
  url: string;
  body?: unknown;
  query?: Record<string, string>;
  headers?: Record<string, string>;
}

export interface EntryPoint {
  name: string;
  request: (value: string, existing: Existing) => Request;
  answer?: 'text' | 'bulk-queue' | 'bulk-import';
  notFound?: object;
}

const pl = { rid: 'passwordless' };

export const phoneEntryPoints: EntryPoint[] = [
  {
    name: 'POST /recipe/signinup/code',
    request: (phoneNumber) => ({ method: 'POST', url: '/recipe/signinup/code', body: { phoneNumber } }),
  },
  {
    name: 'PUT /recipe/user (passwordless)',
    request: (phoneNumber, { passwordlessUserId }) => ({
      method: 'PUT',
      url: '/recipe/user',
      headers: pl,
      body: { recipeUserId: passwordlessUserId, phoneNumber },
    }),
  },
  {
    name: 'GET /recipe/user (passwordless)',
    request: (phoneNumber) => ({ method: 'GET', url: '/recipe/user', headers: pl, query: { phoneNumber } }),
    notFound: { status: 'UNKNOWN_PHONE_NUMBER_ERROR' },
  },
  {
    name: 'GET /recipe/signinup/codes',
    request: (phoneNumber) => ({ method: 'GET', url: '/recipe/signinup/codes', query: { phoneNumber } }),
    notFound: { status: 'OK', devices: [] },
  },
  {
    name: 'POST /recipe/signinup/codes/remove',
    request: (phoneNumber) => ({ method: 'POST', url: '/recipe/signinup/codes/remove', body: { phoneNumber } }),
    notFound: { status: 'OK' },
  },
  {
    name: 'GET /users/by-accountinfo',
    request: (phoneNumber) => ({ method: 'GET', url: '/users/by-accountinfo', query: { phoneNumber, doUnionOfAccountInfo: 'true' } }),
    notFound: { status: 'OK', users: [] },
  },
  {
    name: 'POST /bulk-import/users',
    answer: 'bulk-queue',
    request: (phoneNumber) => ({
      method: 'POST',
      url: '/bulk-import/users',
      body: { users: [{ loginMethods: [{ recipeId: 'passwordless', phoneNumber }] }] },
    }),
  },
  {
    name: 'POST /bulk-import/import',
    answer: 'bulk-import',
    request: (phoneNumber) => ({
      method: 'POST',
      url: '/bulk-import/import',
      body: { loginMethods: [{ recipeId: 'passwordless', phoneNumber }] },
    }),
  },
];

const bulkMethods = (email: string) => [
  { recipeId: 'emailpassword', email, passwordHash: bcryptHash, hashingAlgorithm: 'bcrypt' },
  { recipeId: 'thirdparty', email, thirdPartyId: 'google', thirdPartyUserId: 'g-bulk' },
  { recipeId: 'passwordless', email },
];

export const emailEntryPoints: EntryPoint[] = [
  { name: 'POST /recipe/signinup/code', request: (email) => ({ method: 'POST', url: '/recipe/signinup/code', body: { email } }) },
  {
    name: 'PUT /recipe/user (passwordless)',
    request: (email, { passwordlessUserId }) => ({
      method: 'PUT',
      url: '/recipe/user',
      headers: pl,
      body: { recipeUserId: passwordlessUserId, email },
    }),
  },
  {
    name: 'GET /recipe/user (passwordless)',
    request: (email) => ({ method: 'GET', url: '/recipe/user', headers: pl, query: { email } }),
    notFound: { status: 'UNKNOWN_EMAIL_ERROR' },
  },
  {
    name: 'GET /recipe/signinup/codes',
    request: (email) => ({ method: 'GET', url: '/recipe/signinup/codes', query: { email } }),
    notFound: { status: 'OK', devices: [] },
  },
  {
    name: 'POST /recipe/signinup/codes/remove',
    request: (email) => ({ method: 'POST', url: '/recipe/signinup/codes/remove', body: { email } }),
    notFound: { status: 'OK' },
  },
  {
    name: 'POST /recipe/user/passwordhash/import',
    request: (email) => ({ method: 'POST', url: '/recipe/user/passwordhash/import', body: { email, passwordHash: bcryptHash } }),
  },
  { name: 'POST /recipe/signup', request: (email) => ({ method: 'POST', url: '/recipe/signup', body: { email, password: 'a password' } }) },
  {
    name: 'GET /recipe/user (email-password)',
    request: (email) => ({ method: 'GET', url: '/recipe/user', query: { email } }),
    notFound: { status: 'UNKNOWN_EMAIL_ERROR' },
  },
  {
    name: 'PUT /recipe/user (email-password)',
    request: (email, { emailPasswordUserId }) => ({
      method: 'PUT',
      url: '/recipe/user',
      body: { recipeUserId: emailPasswordUserId, email },
    }),
  },
  {
    name: 'POST /recipe/signinup (third party)',
    request: (email) => ({
      method: 'POST',
      url: '/recipe/signinup',
      body: { thirdPartyId: 'google', thirdPartyUserId: 'g-1', email: { id: email } },
    }),
  },
  {
    name: 'GET /recipe/users/by-email',
    request: (email) => ({ method: 'GET', url: '/recipe/users/by-email', query: { email } }),
    notFound: { status: 'OK', users: [] },
  },
  {
    name: 'GET /users/by-accountinfo',
    request: (email) => ({ method: 'GET', url: '/users/by-accountinfo', query: { email, doUnionOfAccountInfo: 'false' } }),
    notFound: { status: 'OK', users: [] },
  },
  ...bulkMethods('x').map((method) => ({
    name: `POST /bulk-import/users (${method.recipeId})`,
    answer: 'bulk-queue' as const,
    request: (email: string) => ({
      method: 'POST' as const,
      url: '/bulk-import/users',
      body: { users: [{ loginMethods: [{ ...method, email }] }] },
    }),
  })),
  ...bulkMethods('x').map((method) => ({
    name: `POST /bulk-import/import (${method.recipeId})`,
    answer: 'bulk-import' as const,
    request: (email: string) => ({ method: 'POST' as const, url: '/bulk-import/import', body: { loginMethods: [{ ...method, email }] } }),
  })),
];

const invalidUsers = 'Data has missing or invalid fields. Please check the users field for more details.';

/**
 * Sends the request and asserts the 400 and its exact message (or, on a lookup or removal, its "not found"), and
 * that no table changed.
 */
export async function expectRefused(t: TestApp, entry: EntryPoint, value: string, existing: Existing, message: string): Promise<void> {
  const before = await snapshot(t.db);
  const { method, url, ...options } = entry.request(value, existing);
  const reply = await call(t.app, method, url, options);
  if (entry.notFound) {
    expect([reply.statusCode, reply.json]).toEqual([200, entry.notFound]);
  } else if (entry.answer === 'bulk-queue') {
    expect([reply.statusCode, reply.json]).toEqual([400, { error: invalidUsers, users: [{ index: 0, errors: [message] }] }]);
  } else if (entry.answer === 'bulk-import') {
    expect([reply.statusCode, reply.json]).toEqual([400, { errors: [message] }]);
  } else {
    expect([reply.statusCode, reply.body]).toEqual([400, `${message}\n`]);
  }
  expect(await snapshot(t.db)).toEqual(before);
}
