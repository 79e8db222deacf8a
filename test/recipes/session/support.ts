import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { call, type Reply } from '../../helper.js';

export const sha = (value: string) => crypto.createHash('sha256').update(value).digest('hex');
export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export function decodeJwt(token: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [header, payload] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as Record<string, unknown>,
    payload: JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>,
  };
}

export function sessionApi(app: FastifyInstance, cdi = '5.4') {
  const headers = { 'cdi-version': cdi };
  const post = (url: string, body: unknown) => call(app, 'POST', url, { body, headers });
  return {
    create: (body: Record<string, unknown> = {}, tenant = 'public') =>
      post(`/${tenant}/recipe/session`, {
        userId: 'u1',
        userDataInJWT: {},
        userDataInDatabase: {},
        useDynamicSigningKey: true,
        enableAntiCsrf: false,
        ...body,
      }),
    verify: (accessToken: string, body: Record<string, unknown> = {}, path = '/recipe/session/verify') =>
      post(path, { accessToken, doAntiCsrfCheck: false, enableAntiCsrf: false, checkDatabase: false, ...body }),
    refresh: (refreshToken: string, body: Record<string, unknown> = {}) =>
      post('/recipe/session/refresh', { refreshToken, enableAntiCsrf: false, useDynamicSigningKey: true, ...body }),
    regenerate: (accessToken: string, userDataInJWT?: Record<string, unknown>) =>
      post('/recipe/session/regenerate', { accessToken, ...(userDataInJWT && { userDataInJWT }) }),
    info: (sessionHandle: string) => call(app, 'GET', '/recipe/session', { query: { sessionHandle }, headers }),
    remove: (body: unknown, path = '/recipe/session/remove') => post(path, body),
    handlesOf: (query: Record<string, string>, path = '/recipe/session/user') => call(app, 'GET', path, { query, headers }),
    put: (url: string, body: unknown) => call(app, 'PUT', url, { body, headers }),
  };
}

export interface CreatedSession {
  handle: string;
  accessToken: string;
  refreshToken: string;
  body: any;
}

export function created(reply: Reply): CreatedSession {
  expect(reply.statusCode, reply.body).toBe(200);
  return {
    handle: reply.json.session.handle,
    accessToken: reply.json.accessToken.token,
    refreshToken: reply.json.refreshToken.token,
    body: reply.json,
  };
}

export const tokenInfo = { token: expect.any(String), expiry: expect.any(Number), createdTime: expect.any(Number) };
