import type { QueueRow } from './repository.js';
import type { QueueEntry } from './schemas.js';

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
