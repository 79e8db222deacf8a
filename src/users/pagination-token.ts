import { decodeStandardBase64 } from '../base64.js';

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/** Where a page starts: a row's id and its time (a Java long, kept as decimal text so no digit is lost). */
export interface PageToken {
  id: string;
  time: string;
}

// Standard Base64 of "<id>;<time>", the reference's token for GET /users (contract §8.4: internal user id and
// timeJoined) and GET /bulk-import/users (§10.4: queue row id and createdAt), so tokens handed out by either core
// page through the same rows.
export function encodePaginationToken(id: string, time: number | string): string {
  return Buffer.from(`${id};${time}`, 'utf8').toString('base64');
}

// Read as the reference reads it: Java's decoder (no character outside the alphabet, padding optional but correct),
// Java's split (trailing empty pieces dropped, so "id;" is one piece and invalid while ";5" is two) and
// Long.parseLong (an optional sign, 64 bits).
export function decodePaginationToken(token: string): PageToken | undefined {
  const bytes = decodeStandardBase64(token);
  if (bytes === undefined) return undefined;
  const parts = bytes.toString('utf8').split(';');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length !== 2 || !/^[+-]?[0-9]+$/.test(parts[1])) return undefined;
  const time = BigInt(parts[1]);
  if (time < int64Min || time > int64Max) return undefined;
  return { id: parts[0], time: time.toString() };
}
