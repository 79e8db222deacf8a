import { coreError, invalidField, type ErrorCode } from '../../../errors.js';
import type { ConsumeCodeBody, CreateCodeBody, GetUserQuery, ListCodesQuery, RemoveCodeBody, RemoveCodesBody } from '../schemas.js';
import type { CodeTarget, CodeToRemove, DeviceLookup, RedeemInput, UserLookup } from '../types.js';

// The "exactly one of" rules of contract §5, which JSON schema cannot word the contract's way.

type ExactlyOneError = Extract<ErrorCode, 'CREATE_CODE_TARGET' | 'LIST_CODES_LOOKUP' | 'REMOVE_CODES_CONTACT' | 'PASSWORDLESS_USER_LOOKUP'>;

function exactlyOne<K extends string>(input: Partial<Record<K, unknown>>, keys: readonly K[], error: ExactlyOneError): K {
  const given = keys.filter((key) => input[key] !== undefined);
  if (given.length !== 1) throw coreError(error);
  return given[0];
}

export function parseCreateCode(body: CreateCodeBody): { target: CodeTarget; userInputCode?: string } {
  const kind = exactlyOne(body, ['email', 'phoneNumber', 'deviceId'] as const, 'CREATE_CODE_TARGET');
  if (body.userInputCode === '') throw coreError('USER_INPUT_CODE_EMPTY');
  return { target: { kind, value: body[kind]! }, userInputCode: body.userInputCode };
}

// Presence decides the form before types are checked, and a JSON null counts as present (contract §5.3).
export function parseRedeem(tenantId: string, body: ConsumeCodeBody): RedeemInput {
  const has = (key: string) => Object.hasOwn(body, key);
  const { preAuthSessionId } = body;
  if (has('linkCode')) {
    if (has('deviceId') || has('userInputCode')) throw coreError('CONSUME_CODE_FORM');
    if (typeof body.linkCode !== 'string') throw invalidField('linkCode');
    return { tenantId, preAuthSessionId, linkCode: body.linkCode };
  }
  if (!has('deviceId') || !has('userInputCode')) throw coreError('CONSUME_CODE_FORM');
  if (typeof body.deviceId !== 'string') throw invalidField('deviceId');
  if (typeof body.userInputCode !== 'string') throw invalidField('userInputCode');
  return { tenantId, preAuthSessionId, deviceId: body.deviceId, userInputCode: body.userInputCode };
}

export function parseDeviceLookup(query: ListCodesQuery): DeviceLookup {
  const kind = exactlyOne(query, ['email', 'phoneNumber', 'deviceId', 'preAuthSessionId'] as const, 'LIST_CODES_LOOKUP');
  return { kind, value: query[kind]! };
}

// Before cdi 5.0 only codeId exists; preAuthSessionId is ignored whatever it holds.
export function parseCodeToRemove(body: RemoveCodeBody, byPreAuthSessionId: boolean): CodeToRemove {
  if (!byPreAuthSessionId) {
    if (body.codeId === undefined) throw invalidField('codeId');
    return { codeId: body.codeId };
  }
  const { codeId, preAuthSessionId } = body;
  if (preAuthSessionId !== undefined && typeof preAuthSessionId !== 'string') throw invalidField('preAuthSessionId');
  if (codeId === undefined && preAuthSessionId === undefined) throw coreError('REMOVE_CODE_NEITHER');
  if (codeId !== undefined && preAuthSessionId !== undefined) throw coreError('REMOVE_CODE_BOTH');
  return codeId !== undefined ? { codeId } : { preAuthSessionId: preAuthSessionId as string };
}

export function parseContact(body: RemoveCodesBody): { kind: 'email' | 'phoneNumber'; value: string } {
  const kind = exactlyOne(body, ['email', 'phoneNumber'] as const, 'REMOVE_CODES_CONTACT');
  return { kind, value: body[kind]! };
}

export function parseUserLookup(query: GetUserQuery): UserLookup {
  const kind = exactlyOne(query, ['userId', 'email', 'phoneNumber'] as const, 'PASSWORDLESS_USER_LOOKUP');
  return { kind, value: query[kind]! };
}
