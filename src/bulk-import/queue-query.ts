import { badInput, invalidField } from '../errors.js';
import { integerQuery } from '../http/query.js';
import type { QueueStatus } from './repository.js';

// Input checks of the queue routes, in the reference's order (they run before the app-scope check there).

const defaultLimit = 100;
const maxLimit = 500;
const maxRemoveIds = 500;
const queueStatuses: readonly string[] = ['NEW', 'PROCESSING', 'FAILED'] satisfies QueueStatus[];

export function parseQueueStatus(value: string | undefined): QueueStatus | undefined {
  if (value === undefined) return undefined;
  if (!queueStatuses.includes(value)) throw badInput('Invalid value for status. Pass one of NEW, PROCESSING, or FAILED!');
  return value as QueueStatus;
}

export function parseListLimit(query: Record<string, string | undefined>): number {
  const limit = integerQuery(query, 'limit');
  if (limit === undefined) return defaultLimit;
  if (limit > maxLimit) throw badInput(`Max limit allowed is ${maxLimit}`);
  if (limit < 1) throw badInput('limit must a positive integer with min value 1');
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
  if (lower !== 'true' && lower !== 'false') throw badInput(`'${name}' should be either 'true' or 'false'`);
  return lower === 'true';
}

export function parseRemoveIds(ids: unknown[]): string[] {
  if (ids.length > maxRemoveIds) throw badInput(`Field name 'ids' cannot contain more than ${maxRemoveIds} elements`);
  return ids.map((id) => {
    if (typeof id !== 'string') throw invalidField('ids');
    if (id === '') throw badInput("Field name 'ids' cannot contain an empty string");
    return id;
  });
}
