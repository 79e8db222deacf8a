import { timingSafeEqual } from 'node:crypto';

/** Equal length, then a constant-time comparison; the length of a stored hash is not secret. */
export function equalInConstantTime(computed: Buffer, stored: Buffer): boolean {
  return computed.length === stored.length && timingSafeEqual(computed, stored);
}

export function equalTextInConstantTime(computed: string, stored: string): boolean {
  return equalInConstantTime(Buffer.from(computed, 'latin1'), Buffer.from(stored, 'latin1'));
}
