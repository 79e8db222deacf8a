import { expect } from 'vitest';
import { call, type TestApp } from '../helper.js';

/** A user signed up here and mapped to the id the old provider knows them by, as the migration command leaves them. */
export async function importUser(app: TestApp['app'], email: string, oldId?: string): Promise<string> {
  const signUp = await call(app, 'POST', '/recipe/signup', { body: { email, password: 'irrelevant-password' } });
  expect(signUp.json.status, signUp.body).toBe('OK');
  const id = signUp.json.user.id as string;
  if (oldId !== undefined) {
    const map = await call(app, 'POST', '/recipe/userid/map', { body: { superTokensUserId: id, externalUserId: oldId } });
    expect(map.json, map.body).toEqual({ status: 'OK' });
  }
  return id;
}

export function exchange(app: TestApp['app'], source: string, token: string, tenant = 'public') {
  return call(app, 'POST', `/${tenant}/session-bridge/exchange`, { body: { source, token } });
}

export async function wireUser(app: TestApp['app'], id: string) {
  const reply = await call(app, 'GET', '/user/id', { query: { userId: id } });
  expect(reply.json.status, reply.body).toBe('OK');
  return reply.json.user as Record<string, unknown>;
}

export const seconds = (ms: number) => Math.floor(ms / 1000);
