import { badInput } from '../errors.js';
import type { QueueCursor, QueueRow } from './repository.js';
import type { QueueEntry } from './schemas.js';

// Pagination token of GET /bulk-import/users: standard Base64 of "<rowId>;<createdAt>" (contract §10.4).
export function encodeQueueCursor(row: Pick<QueueRow, 'id' | 'created_at'>): string {
  return Buffer.from(`${row.id};${row.created_at}`).toString('base64');
}

export function decodeQueueCursor(token: string): QueueCursor {
  const invalid = badInput('invalid pagination token');
  // Buffer.from(…, 'base64') skips characters it does not know; the reference's decoder rejects them.
  if (token.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(token)) throw invalid;
  const parts = Buffer.from(token, 'base64').toString('utf8').split(';');
  if (parts.length !== 2 || !/^-?\d+$/.test(parts[1]) || !Number.isSafeInteger(Number(parts[1]))) throw invalid;
  return { id: parts[0], createdAt: Number(parts[1]) };
}

// The stored user JSON with its queue columns; null columns are left out.
export function toQueueEntry(row: QueueRow): QueueEntry {
  return {
    ...(row.raw_data as Omit<QueueEntry, 'id' | 'status' | 'createdAt' | 'updatedAt'>),
    id: row.id,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.error_message !== null && { errorMessage: row.error_message }),
    ...(row.primary_user_id !== null && { primaryUserId: row.primary_user_id }),
  };
}
