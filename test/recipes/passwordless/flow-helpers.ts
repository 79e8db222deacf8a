import type { FastifyInstance } from 'fastify';
import { call, type Reply } from '../../helper.js';
import type { CreateCodeResult } from '../../../src/recipes/passwordless/types.js';

export type IssuedCode = Extract<CreateCodeResult, { status: 'OK' }>;

export async function createCode(
  app: FastifyInstance,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<IssuedCode> {
  const reply = await call(app, 'POST', '/recipe/signinup/code', { body, headers });
  if (reply.statusCode !== 200 || reply.json.status !== 'OK') throw new Error(`create code failed: ${reply.statusCode} ${reply.body}`);
  return reply.json as IssuedCode;
}

export function consumeWithLink(app: FastifyInstance, code: IssuedCode, headers: Record<string, string> = {}): Promise<Reply> {
  return call(app, 'POST', '/recipe/signinup/code/consume', {
    body: { preAuthSessionId: code.preAuthSessionId, linkCode: code.linkCode },
    headers,
  });
}

export function consumeWithCode(
  app: FastifyInstance,
  code: Pick<IssuedCode, 'preAuthSessionId' | 'deviceId'>,
  userInputCode: string,
  route: 'consume' | 'check' = 'consume',
): Promise<Reply> {
  return call(app, 'POST', `/recipe/signinup/code/${route}`, {
    body: { preAuthSessionId: code.preAuthSessionId, deviceId: code.deviceId, userInputCode },
  });
}

/** A 6-digit code that is not the given one. */
export function wrongCode(code: string): string {
  return code === '000000' ? '111111' : '000000';
}

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
