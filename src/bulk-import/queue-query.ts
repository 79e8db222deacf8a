import { coreError, invalidField } from '../errors.js';
import { integerQuery } from '../http/query.js';
import type { QueueStatus } from './repository.js';

// Input checks of the queue routes, in the reference's order (they run before the app-scope check there).

const defaultLimit = 100;
const maxLimit = 500;
const maxRemoveIds = 500;
const queueStatuses: readonly string[] = ['NEW', 'PROCESSING', 'FAILED'] satisfies QueueStatus[];

export function parseQueueStatus(value: string | undefined): QueueStatus | undefined {
  if (value === undefined) return undefined;
  if (!queueStatuses.includes(value)) throw coreError('QUEUE_STATUS');
  return value as QueueStatus;
}

export function parseListLimit(query: Record<string, string | undefined>): number {
  const limit = integerQuery(query, 'limit');
  if (limit === undefined) return defaultLimit;
  if (limit > maxLimit) throw coreError('QUEUE_LIMIT_TOO_HIGH', maxLimit);
  if (limit < 1) throw coreError('LIMIT_NOT_POSITIVE');
  return limit;
}

// [BEYOND] ?dryRun=true; any value but true/false is refused rather than silently importing.
export function parseDryRun(value: string | undefined): boolean {
  return parseFlag(value, 'dryRun');
}

// [BEYOND] ?importNow=true imports before answering instead of queueing.
export function parseImportNow(value: string | undefined): boolean {
  return parseFlag(value, 'importNow');
}

function parseFlag(value: string | undefined, name: 'dryRun' | 'importNow'): boolean {
  if (value === undefined) return false;
  const lower = value.toLowerCase();
  if (lower !== 'true' && lower !== 'false') throw coreError('FLAG_NOT_BOOLEAN', name);
  return lower === 'true';
}

export function parseRemoveIds(ids: unknown[]): string[] {
  if (ids.length > maxRemoveIds) throw coreError('TOO_MANY_ELEMENTS', 'ids', maxRemoveIds);
  return ids.map((id) => {
    if (typeof id !== 'string') throw invalidField('ids');
    if (id === '') throw coreError('REMOVE_IDS_EMPTY_STRING');
    return id;
  });
}
