import type { PageCursor } from './listing-repository.js';

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

// Standard Base64 of "<internalUserId>;<timeJoined>" (contract §8.4), the reference's token format, so tokens
// handed out by either core page through the same users.
export function encodePaginationToken(userId: string, timeJoined: number): string {
  return Buffer.from(`${userId};${timeJoined}`, 'utf8').toString('base64');
}

export function decodePaginationToken(token: string): PageCursor | undefined {
  // Node's decoder skips characters outside the alphabet; the reference's does not, so check first.
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(token) || token.replace(/=+$/, '').length % 4 === 1) return undefined;
  if (token.includes('=') && token.length % 4 !== 0) return undefined;
  // Java's split drops trailing empty pieces, so "id;" is one piece and invalid while ";5" is two.
  const parts = Buffer.from(token, 'base64').toString('utf8').split(';');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length !== 2 || !/^[+-]?[0-9]+$/.test(parts[1])) return undefined;
  const timeJoined = BigInt(parts[1]);
  if (timeJoined < int64Min || timeJoined > int64Max) return undefined;
  return { userId: parts[0], timeJoined: timeJoined.toString() };
}
